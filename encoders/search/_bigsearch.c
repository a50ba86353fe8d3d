/* The search's compiled finder for big boards (encoders/search/bigsearch.py): the engine's restarts, in C.
 *
 * Why: a dense side-10 deal has 217 tiles, and a solution may lie behind a few hundred thousand states
 * that a stuck set closes early (dense-10-s1-72: about 200,000 states with stuck sets looked for in every
 * state, 4 million without).  The Python engine looks at some 6,000 such states a second; this walk at
 * some 80,000.  It only finds solutions: a solution it returns is replayed by the rule engine like any
 * other, and when it runs out of states the Python engine answers (with its certificate), so nothing
 * it says is taken on trust.
 *
 *   find(spec, seconds, seed, stop, table_bits) -> tuple of (a, b) moves | False | None
 *
 * spec: an array('h') of the board's tiles: n, then per tile its symbol (a character code), its number of
 * minimal windows, each as a count and that many tile ids, and its neighbours as a count and tile ids
 * (bigsearch.spec builds it).  Moves are pairs of tile ids in playing order, (gold, -1) for gold alone.
 * False: every state was searched (the board has no solution, as a claim); None: the time ran out or
 * stop[0] was set.
 *
 * The search (the engine's, engine.py): depth-first, a table of dead states, Luby restarts of
 * `base` states each with a fresh random order of the tiles.  Pruned as dead (each sound): a state
 * whose salt can no longer pair up the elements of odd count, and a state with a stuck set found by
 * the fast worklist of pruning.py (rules (a), (b) and (e) of docs/formats.md#stuck-sets).  The table
 * is emptied when full (forgetting a dead state is sound: it is only searched again).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W 6 /* words of a state: up to 384 tiles (a full side-11 board has 331 cells) */
#define MAXN (64 * W)
#define MAXW 6
#define MAXMOVES 8192

typedef struct {
    uint64_t w[W];
} M;

typedef struct {
    int n;
    char sym[MAXN];
    int rank[MAXN]; /* the metal's digit, -1 for any other tile */
    int nw[MAXN];
    M win[MAXN][MAXW];
    M nbr[MAXN], partners[MAXN], lower[MAXN];
    M metals, salt, el[4];
    int gold;
    /* the search */
    M *table;
    uint8_t *used;
    uint64_t cap, count, nodes, budget;
    uint32_t key[MAXN];
    uint64_t rng;
    double deadline;
    volatile char *stop;
    PyThreadState *save; /* the search runs with the GIL released, taking it back at each look */
    int out;             /* 1 when the time ran out, a stop came or a signal handler raised */
    int error;           /* a signal handler raised: its exception is set */
    int sol[MAXN][2], depth; /* the moves of the path, in playing order */
    int stack[4 * MAXN];
} S;

static inline int has(const M *m, int i) { return (m->w[i >> 6] >> (i & 63)) & 1; }
static inline void setb(M *m, int i) { m->w[i >> 6] |= 1ULL << (i & 63); }
static inline void clrb(M *m, int i) { m->w[i >> 6] &= ~(1ULL << (i & 63)); }
static inline int disjoint(const M *a, const M *b) {
    uint64_t x = 0;
    for (int j = 0; j < W; j++) x |= a->w[j] & b->w[j];
    return !x;
}
static inline int empty(const M *a) {
    uint64_t x = 0;
    for (int j = 0; j < W; j++) x |= a->w[j];
    return !x;
}
static inline int count(const M *a, const M *b) {
    int c = 0;
    for (int j = 0; j < W; j++) c += __builtin_popcountll(a->w[j] & b->w[j]);
    return c;
}
static inline int is_element(char c) { return c == 'a' || c == 'e' || c == 'f' || c == 'w'; }
static inline int is_free(const S *s, const M *occ, int i) {
    for (int k = 0; k < s->nw[i]; k++)
        if (disjoint(&s->win[i][k], occ)) return 1;
    return 0;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t hash(const M *m) {
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (int j = 0; j < W; j++) h = (h ^ m->w[j]) * 0xC2B2AE3D27D4EB4FULL;
    return h ^ (h >> 29);
}
static int dead(const S *s, const M *m) {
    uint64_t i = hash(m) & (s->cap - 1);
    while (s->used[i]) {
        if (!memcmp(&s->table[i], m, sizeof(M))) return 1;
        i = (i + 1) & (s->cap - 1);
    }
    return 0;
}
static void mark_dead(S *s, const M *m) {
    if (s->count * 10 > s->cap * 7) { /* full: forget every dead state (sound, only slower) */
        memset(s->used, 0, s->cap);
        s->count = 0;
    }
    uint64_t i = hash(m) & (s->cap - 1);
    while (s->used[i]) {
        if (!memcmp(&s->table[i], m, sizeof(M))) return;
        i = (i + 1) & (s->cap - 1);
    }
    s->used[i] = 1;
    s->table[i] = *m;
    s->count++;
}

/* The salt left can still pair up the elements of odd count (the only count a legal move can break). */
static int counts_ok(const S *s, const M *occ) {
    int odd = 0;
    for (int e = 0; e < 4; e++) odd += count(occ, &s->el[e]) & 1;
    int salt = count(occ, &s->salt);
    return salt >= odd && !((salt - odd) & 1);
}

/* A stuck set of the state, by the worklist of pruning.Pruning.stuck_set_fast (its docstring argues it). */
static int stuck(S *s, const M *occ, const int *frees, int nfree, int current) {
    M st = *occ, locked = *occ, loose;
    for (int x = 0; x < nfree; x++) clrb(&locked, frees[x]);
    for (int j = 0; j < W; j++) locked.w[j] |= occ->w[j] & s->metals.w[j];
    if (current >= 0 && is_free(s, occ, current)) clrb(&locked, current);
    for (int j = 0; j < W; j++) loose.w[j] = occ->w[j] & ~locked.w[j];
    int sp = 0;
    for (int j = 0; j < W; j++)
        for (uint64_t x = loose.w[j]; x; x &= x - 1) {
            int t = j * 64 + __builtin_ctzll(x);
            if (t == s->gold || !disjoint(&s->partners[t], &loose)) s->stack[sp++] = t;
        }
    while (sp) {
        int u = s->stack[--sp];
        if (!has(&st, u)) continue;
        clrb(&st, u);
        M cand;
        for (int j = 0; j < W; j++) cand.w[j] = s->nbr[u].w[j] & locked.w[j];
        if (s->rank[u] >= 0)
            for (int j = 0; j < W; j++) cand.w[j] |= locked.w[j] & s->metals.w[j];
        for (int j = 0; j < W; j++)
            for (uint64_t x = cand.w[j]; x; x &= x - 1) {
                int v = j * 64 + __builtin_ctzll(x);
                if (!has(&locked, v) || !disjoint(&s->lower[v], &st)) continue;
                int open = 0;
                for (int k = 0; k < s->nw[v] && !open; k++) open = disjoint(&s->win[v][k], &st);
                if (!open) continue; /* still walled in */
                clrb(&locked, v);
                setb(&loose, v);
                /* each tile is pushed at most once as unlocked and once per partner unlocked: bounded */
                if ((v == s->gold || !disjoint(&s->partners[v], &loose)) && sp < 4 * MAXN) s->stack[sp++] = v;
                for (int jj = 0; jj < W; jj++)
                    for (uint64_t d = s->partners[v].w[jj] & st.w[jj] & loose.w[jj]; d; d &= d - 1)
                        if (sp < 4 * MAXN) s->stack[sp++] = jj * 64 + __builtin_ctzll(d);
            }
    }
    return !empty(&st);
}

typedef struct {
    int a, b;
    uint32_t key;
} Move;

static int by_key(const void *x, const void *y) {
    const Move *p = x, *q = y;
    return p->key < q->key ? -1 : p->key > q->key;
}

/* Every 256 states: the GIL taken back for the signal handlers (the race's timer ticks run search in its own
 * process between two bytecodes: here they run at these looks) and for the thread that calls stop(); then
 * the stop flag and the deadline.  1 when the search must end. */
static int look(S *s) {
    PyEval_RestoreThread(s->save);
    if (PyErr_CheckSignals() < 0) s->error = 1;
    s->save = PyEval_SaveThread();
    if (s->error || *s->stop || now() > s->deadline) s->out = 1;
    return s->out;
}

/* 1: solved (the path in s->sol), 0: dead, -1: the restart's budget, the time or a stop. */
static int dfs(S *s, const M *occ) {
    s->nodes++;
    if (s->nodes >= s->budget) return -1;
    if (!(s->nodes & 255) && look(s)) return -1;
    int frees[MAXN], nfree = 0, current = -1, metals = 0;
    for (int j = 0; j < W; j++)
        for (uint64_t x = occ->w[j]; x; x &= x - 1) {
            int i = j * 64 + __builtin_ctzll(x);
            if (is_free(s, occ, i)) frees[nfree++] = i;
            if (s->rank[i] >= 0) {
                metals++;
                if (current < 0 || s->rank[i] < s->rank[current]) current = i;
            }
        }
    if (stuck(s, occ, frees, nfree, current)) {
        mark_dead(s, occ);
        return 0;
    }
    Move *moves = malloc(MAXMOVES * sizeof(Move));
    if (!moves) return -1;
    int nm = 0;
    for (int x = 0; x < nfree && nm < MAXMOVES; x++) {
        int a = frees[x];
        char sa = s->sym[a];
        if (a == s->gold) {
            if (metals == 1) moves[nm++] = (Move){a, -1, s->key[a]};
            continue;
        }
        for (int y = x + 1; y < nfree && nm < MAXMOVES; y++) {
            int b = frees[y];
            char sb = s->sym[b];
            if (b == s->gold) continue;
            int ok = (is_element(sa) && sa == sb) || (sa == 's' && (sb == 's' || is_element(sb))) ||
                     (sb == 's' && is_element(sa)) || (sa == 'v' && sb == 'm') || (sa == 'm' && sb == 'v') ||
                     (sa == 'q' && b == current) || (sb == 'q' && a == current);
            if (ok) moves[nm++] = (Move){a, b, s->key[a] + s->key[b]};
        }
    }
    qsort(moves, nm, sizeof(Move), by_key);
    int answer = 0;
    for (int k = 0; k < nm; k++) {
        M child = *occ;
        int a = moves[k].a, b = moves[k].b;
        clrb(&child, a);
        if (b >= 0) clrb(&child, b);
        s->sol[s->depth][0] = a;
        s->sol[s->depth][1] = b;
        if (empty(&child)) {
            s->depth++;
            answer = 1;
            break;
        }
        if (dead(s, &child)) continue;
        if ((s->sym[a] == 's' || (b >= 0 && s->sym[b] == 's')) && !counts_ok(s, &child)) {
            mark_dead(s, &child);
            continue;
        }
        s->depth++;
        int r = dfs(s, &child);
        if (r == 1) {
            answer = 1;
            break;
        }
        s->depth--;
        if (r < 0) {
            answer = -1;
            break;
        }
    }
    free(moves);
    if (answer == 0) mark_dead(s, occ);
    return answer;
}

static uint64_t luby(uint64_t i) {
    uint64_t k = 1;
    while (((1ULL << k) - 1) < i) k++;
    while (((1ULL << k) - 1) != i) {
        i -= (1ULL << (k - 1)) - 1;
        k = 1;
        while (((1ULL << k) - 1) < i) k++;
    }
    return 1ULL << (k - 1);
}

/* A count, then that many tile indexes below n, into the set `into` (a window's tiles, a tile's neighbours):
   0, or -1 when the spec ends early or names a tile that is not there. */
static int read_tiles(const short *v, Py_ssize_t len, Py_ssize_t *p, int n, M *into) {
    if (*p >= len) return -1;
    int l = v[(*p)++];
    for (int t = 0; t < l; t++) {
        if (*p >= len) return -1;
        int x = v[(*p)++];
        if (x < 0 || x >= n) return -1;
        setb(into, x);
    }
    return 0;
}

static int read_spec(S *s, const short *v, Py_ssize_t len) {
    Py_ssize_t p = 0;
#define NEXT(x)                                                                                                        \
    do {                                                                                                               \
        if (p >= len) return -1;                                                                                       \
        (x) = v[p++];                                                                                                  \
    } while (0)
    int n;
    NEXT(n);
    if (n < 0 || n > MAXN) return -1;
    s->n = n;
    s->gold = -1;
    int top = -1;
    for (int i = 0; i < n; i++) {
        int c, nw;
        NEXT(c);
        NEXT(nw);
        if (nw < 0 || nw > MAXW || c <= 0 || c > 127) return -1;
        s->sym[i] = (char)c;
        s->nw[i] = nw;
        s->rank[i] = c >= '1' && c <= '9' ? c - '0' : -1;
        if (s->rank[i] > top) {
            top = s->rank[i];
            s->gold = i;
        }
        for (int k = 0; k < nw; k++)
            if (read_tiles(v, len, &p, n, &s->win[i][k]) < 0) return -1;
        if (read_tiles(v, len, &p, n, &s->nbr[i]) < 0) return -1;
        if (s->rank[i] >= 0) setb(&s->metals, i);
        if (c == 's') setb(&s->salt, i);
        const char *els = "aefw";
        for (int e = 0; e < 4; e++)
            if (c == els[e]) setb(&s->el[e], i);
    }
    if (p != len) return -1;
    for (int i = 0; i < n; i++) {
        char c = s->sym[i];
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            char d = s->sym[j];
            int ok = (is_element(c) && (d == c || d == 's')) || (c == 's' && (d == 's' || is_element(d))) ||
                     (c == 'v' && d == 'm') || (c == 'm' && d == 'v') || (c == 'q' && s->rank[j] >= 0 && j != s->gold) ||
                     (s->rank[i] >= 0 && i != s->gold && d == 'q');
            if (ok) setb(&s->partners[i], j);
            if (s->rank[i] >= 0 && s->rank[j] >= 0 && s->rank[j] < s->rank[i]) setb(&s->lower[i], j);
        }
    }
    return 0;
#undef NEXT
}

static PyObject *find(PyObject *self, PyObject *args) {
    Py_buffer spec, stop;
    double seconds;
    unsigned long long seed;
    int table_bits;
    if (!PyArg_ParseTuple(args, "y*dKw*i", &spec, &seconds, &seed, &stop, &table_bits)) return NULL;
    PyObject *result = NULL;
    S *s = calloc(1, sizeof(S));
    if (!s) {
        PyErr_NoMemory();
        goto done;
    }
    if (spec.len % (Py_ssize_t)sizeof(short) || stop.len < 1 || table_bits < 10 || table_bits > 30 ||
        read_spec(s, spec.buf, spec.len / (Py_ssize_t)sizeof(short))) {
        PyErr_SetString(PyExc_ValueError, "bad spec for the big-board finder");
        goto done;
    }
    s->cap = 1ULL << table_bits;
    s->table = malloc(s->cap * sizeof(M));
    s->used = calloc(s->cap, 1);
    if (!s->table || !s->used) {
        PyErr_NoMemory();
        goto done;
    }
    s->stop = (volatile char *)stop.buf;
    s->rng = seed * 0x9E3779B97F4A7C15ULL + 88172645463325252ULL;
    int answer = -1;
    s->save = PyEval_SaveThread();
    s->deadline = now() + seconds;
    M full = {{0}};
    for (int i = 0; i < s->n; i++) setb(&full, i);
    for (uint64_t r = 1;; r++) {
        for (int i = 0; i < s->n; i++) {
            s->rng ^= s->rng << 13;
            s->rng ^= s->rng >> 7;
            s->rng ^= s->rng << 17;
            s->key[i] = (uint32_t)(s->rng & 0xffff);
        }
        s->budget = s->nodes + 1000 * luby(r);
        s->depth = 0;
        answer = s->n ? dfs(s, &full) : 1;
        if (answer >= 0 || s->out) break;
    }
    PyEval_RestoreThread(s->save);
    if (s->error) goto done;
    if (answer == 1) {
        result = PyTuple_New(s->depth);
        for (int k = 0; result && k < s->depth; k++) {
            PyObject *move = Py_BuildValue("(ii)", s->sol[k][0], s->sol[k][1]);
            if (!move) {
                Py_CLEAR(result);
                break;
            }
            PyTuple_SET_ITEM(result, k, move);
        }
    } else {
        result = answer == 0 ? Py_False : Py_None;
        Py_INCREF(result);
    }
done:
    if (s) {
        free(s->table);
        free(s->used);
        free(s);
    }
    PyBuffer_Release(&spec);
    PyBuffer_Release(&stop);
    return result;
}

static PyMethodDef methods[] = {
    {"find", find, METH_VARARGS, "find(spec, seconds, seed, stop, table_bits): moves, False (none) or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_bigsearch", "The search's compiled finder.", -1, methods};

PyMODINIT_FUNC PyInit__bigsearch(void) { return PyModule_Create(&module); }
