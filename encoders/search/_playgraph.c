/* The compiled core of the play graph (encoders/search/playgraph.py): the same walk, a hundred times faster.
 *
 * A side-6 board's play graph has from ten thousand to tens of millions of positions; in Python
 * a million take minutes, here about a second.  The walk, the keys and the figures are those of
 * playgraph.py's docstring, which this file follows step for step (the tests hold the two to the
 * same brute force):
 *
 *   walk(spec, seconds, max_states[, threads[, prune[, keep]]]) -> tuple   (see py_walk() for its fields;
 *                                      threads: 1 or 2, by default 2 where the machine has two cores; prune
 *                                      False: no position is looked into for a stuck set, the graph as the moves
 *                                      make it; keep True: the walk's largest buffers are kept for the next walk
 *                                      that keeps, see kept_take(); False, the default, frees any kept)
 *   playouts(spec, runs, seed) -> wins          uniformly random legal games
 *
 * spec = (n, elements[4], salt, vitae, mors, quicksilver, quintessence, metal_chain, windows,
 *         neighbours, kinds): the board's masks (bit i is tile i; n <= 64; at most 9 kinds, the loose tiles
 *         of each counted in a key in as many bits as the kind's tiles need), as playgraph.spec builds them.
 *
 * Phase 1 walks the graph breadth first, layer by layer (every move goes from depth d to d + 1), keying
 * positions as playgraph.key does: the positions after a layer's moves are looked up in a table of the next
 * layer alone, a batch at a time and each fetched ahead, and each position keeps its moves' ends as indexes
 * into the next layer.  Phase 2 climbs back from the deepest layer: which positions are alive (can be
 * cleared), their clearing sequences and safe moves, and random play's chance exactly as an integer Q over a
 * known denominator (see climb()), keeping two layers' figures at a time.  Where the machine has two cores, a
 * second thread finds the positions after a large layer's moves ahead of their lookups (expand_two()), and takes
 * half of each large layer of the climb (the lookups stay on one thread, in order, so the graph and every
 * figure are the one thread's).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <pthread.h>
#include <unistd.h>

typedef uint64_t mask;
typedef unsigned __int128 u128;

#define MAXT 64
#define DEAD (-1)
#define STOP (-2)
#define CLEAR INT32_MAX
#define EMPTY INT32_MIN
#define SAME (INT32_MIN + 1)
#define MAXK 65535
#define MAXDEPTH 64
#define NBUF 16 /* the runs of a layer found ahead of their lookup, with two threads (expand_two()) */
/* A slot of a layer's table is 128 bits: the key (the core's tiles in the low 64 bits, then the count of loose
 * tiles of each kind) in the low KEY_BITS, the position's index in its layer above; an all-zero slot is empty (no
 * key is 0).  The counts start at bit 64 whatever the board's size, so that a key is made and read without a
 * shift across the two halves. */
#define KEY_BITS 98
#define MAX_IDS 0x3FFFFFFE

typedef struct {
    int n;
    mask el[4], salt, vitae, mors, qs, qx, metals, gold_bit, nongold;
    int nmet;
    int met[MAXT];
    int nw[MAXT];
    mask win[MAXT][6];
    mask nbr[MAXT], waits_on[MAXT], waiters[MAXT]; /* waiters[t]: the tiles with t in one of their windows */
    mask partners[MAXT]; /* per tile, the tiles it could ever pair with (facts.partners: none for gold) */
    mask lower[MAXT];    /* per metal, the metals before it in the chain */
    int gold;            /* gold's tile, -1 when the board has no metal */
    int nkinds;
    mask kinds[16];
    int count_shift[16]; /* where a key's counts (its high half) hold the loose tiles of each kind */
    uint64_t unit[MAXT]; /* per tile, 1 in its kind's count (0 for a metal) */
    mask full;
    /* The free test by table (is_free()): bit p of freetab[t] says whether t is free when the tiles of waits_on[t]
     * held are those of pattern p (their bits gathered in order, by the pext instruction); used where pext is
     * fast and every tile waits on at most six. */
    uint64_t freetab[MAXT];
    int pext;
} Spec;

/* The hot loops (the walk, random plays) are compiled twice where gcc can dispatch at load time: with the
 * popcnt instruction, and without it for a processor that lacks it (a fifth of the walk's time went to a
 * bit count done in a dozen instructions).  Their helpers are inlined, so they take the caller's target. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__) && defined(__linux__)
#define HOT __attribute__((target_clones("popcnt", "default")))
#else
#define HOT
#endif
#define INLINE static inline __attribute__((always_inline))

INLINE int pc(mask x) { return __builtin_popcountll(x); }
INLINE int low_index(mask x) { return __builtin_ctzll(x); }

/* pext where the processor has it and it is known to be fast (Intel's, AMD's from Zen 3): one instruction instead of
 * a dozen for the free test (AMD's before Zen 3 microcode it, tens to hundreds of cycles: the windows are tested
 * there, as on a processor this file does not know).  In
 * assembly, so that the file builds for any x86-64 and the instruction runs only where it is checked for. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define HAVE_PEXT 1
INLINE uint64_t pext(uint64_t x, uint64_t m) {
    uint64_t r;
    __asm__("pextq %2, %1, %0" : "=r"(r) : "r"(x), "rm"(m));
    return r;
}
static int pext_fast(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi2") && (__builtin_cpu_is("intel") || __builtin_cpu_is("amdfam19h"));
}
#else
#define HAVE_PEXT 0
INLINE uint64_t pext(uint64_t x, uint64_t m) {
    (void)m;
    return x;
}
static int pext_fast(void) { return 0; }
#endif

/* The free test's tables (Spec.freetab): for each pattern of the tiles a tile waits on, whether one of its windows
 * is empty. */
static void free_tables(Spec *s) {
    s->pext = pext_fast();
    for (int i = 0; i < s->n && s->pext; i++) {
        int bits = pc(s->waits_on[i]), at[MAXT], nb = 0;
        if (bits > 6) {
            s->pext = 0;
            break;
        }
        for (mask x = s->waits_on[i]; x; x &= x - 1) at[nb++] = low_index(x);
        s->freetab[i] = 0;
        for (uint64_t p = 0; p < (uint64_t)1 << bits; p++) {
            mask held = 0;
            for (int b = 0; b < nb; b++)
                if (p >> b & 1) held |= (mask)1 << at[b];
            for (int k = 0; k < s->nw[i]; k++)
                if (!(held & s->win[i][k])) s->freetab[i] |= (uint64_t)1 << p;
        }
    }
}

static int read_mask(PyObject *o, mask *out) {
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = (mask)v;
    return 0;
}

static int read_spec(PyObject *t, Spec *s) {
    memset(s, 0, sizeof *s);
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 11) {
        PyErr_SetString(PyExc_TypeError, "spec: a tuple of 11 fields");
        return -1;
    }
    s->n = (int)PyLong_AsLong(PyTuple_GET_ITEM(t, 0));
    if (s->n < 0 || s->n > MAXT) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "spec: at most 64 tiles");
        return -1;
    }
    PyObject *el = PyTuple_GET_ITEM(t, 1);
    if (!PyTuple_Check(el) || PyTuple_GET_SIZE(el) != 4) {
        PyErr_SetString(PyExc_TypeError, "spec: four element masks");
        return -1;
    }
    for (int e = 0; e < 4; e++)
        if (read_mask(PyTuple_GET_ITEM(el, e), &s->el[e])) return -1;
    if (read_mask(PyTuple_GET_ITEM(t, 2), &s->salt) || read_mask(PyTuple_GET_ITEM(t, 3), &s->vitae) ||
        read_mask(PyTuple_GET_ITEM(t, 4), &s->mors) || read_mask(PyTuple_GET_ITEM(t, 5), &s->qs) ||
        read_mask(PyTuple_GET_ITEM(t, 6), &s->qx))
        return -1;
    PyObject *chain = PyTuple_GET_ITEM(t, 7), *windows = PyTuple_GET_ITEM(t, 8);
    PyObject *nbr = PyTuple_GET_ITEM(t, 9), *kinds = PyTuple_GET_ITEM(t, 10);
    if (!PyTuple_Check(chain) || !PyTuple_Check(windows) || !PyTuple_Check(nbr) || !PyTuple_Check(kinds) ||
        PyTuple_GET_SIZE(windows) != s->n || PyTuple_GET_SIZE(nbr) != s->n || PyTuple_GET_SIZE(chain) > MAXT ||
        PyTuple_GET_SIZE(kinds) > 9) {
        PyErr_SetString(PyExc_TypeError, "spec: metal chain, windows, neighbours and kinds as tuples");
        return -1;
    }
    s->nmet = (int)PyTuple_GET_SIZE(chain);
    for (int i = 0; i < s->nmet; i++) {
        s->met[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(chain, i));
        if (s->met[i] < 0 || s->met[i] >= s->n) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "spec: a metal out of range");
            return -1;
        }
        s->metals |= (mask)1 << s->met[i];
    }
    s->gold_bit = s->nmet ? (mask)1 << s->met[s->nmet - 1] : 0;
    s->nongold = s->metals & ~s->gold_bit;
    for (int i = 0; i < s->n; i++) {
        PyObject *w = PyTuple_GET_ITEM(windows, i);
        if (!PyTuple_Check(w) || PyTuple_GET_SIZE(w) > 6 || PyTuple_GET_SIZE(w) < 1) {
            PyErr_SetString(PyExc_TypeError, "spec: one to six windows a tile");
            return -1;
        }
        s->nw[i] = (int)PyTuple_GET_SIZE(w);
        for (int k = 0; k < s->nw[i]; k++) {
            if (read_mask(PyTuple_GET_ITEM(w, k), &s->win[i][k])) return -1;
            s->waits_on[i] |= s->win[i][k];
        }
        for (int k = s->nw[i]; k < 6; k++) s->win[i][k] = (mask)1 << i;
        if (read_mask(PyTuple_GET_ITEM(nbr, i), &s->nbr[i])) return -1;
    }
    s->nkinds = (int)PyTuple_GET_SIZE(kinds);
    int bits = s->n;
    for (int k = 0; k < s->nkinds; k++) {
        if (read_mask(PyTuple_GET_ITEM(kinds, k), &s->kinds[k])) return -1;
        s->count_shift[k] = bits - s->n;
        for (mask x = s->kinds[k] & ~s->metals; x; x &= x - 1) s->unit[low_index(x)] = (uint64_t)1 << (bits - s->n);
        bits += 64 - __builtin_clzll((uint64_t)pc(s->kinds[k]) | 1); /* as many bits as the kind's count needs */
    }
    if (bits - s->n > KEY_BITS - 64) { /* never on a board (64 tiles in 9 kinds need at most 34): a wrong spec */
        PyErr_SetString(PyExc_ValueError, "spec: the kinds' counts take more than 34 bits");
        return -1;
    }
    s->full = s->n == 64 ? ~(mask)0 : (((mask)1 << s->n) - 1);
    for (int b = 0; b < s->n; b++)
        for (mask x = s->waits_on[b]; x; x &= x - 1) s->waiters[low_index(x)] |= (mask)1 << b;
    free_tables(s);
    /* the stuck sets' tables, as facts.symbol_partners and EngineState.lower make them */
    mask elements = s->el[0] | s->el[1] | s->el[2] | s->el[3], before = 0;
    for (int b = 0; b < s->n; b++) {
        mask bit = (mask)1 << b, p = 0;
        for (int e = 0; e < 4; e++)
            if (s->el[e] & bit) p = s->el[e] | s->salt | s->qx;
        if (s->qx & bit) p = elements;
        if (s->salt & bit) p = s->salt | elements;
        if (s->vitae & bit) p = s->mors;
        if (s->mors & bit) p = s->vitae;
        if (s->qs & bit) p = s->nongold;
        if (s->nongold & bit) p = s->qs;
        s->partners[b] = p & ~bit;
    }
    s->gold = s->nmet ? s->met[s->nmet - 1] : -1;
    for (int i = 0; i < s->nmet; i++) {
        s->lower[s->met[i]] = before;
        before |= (mask)1 << s->met[i];
    }
    return 0;
}

/* -- the rules on masks (as encoders/search/state.py, moves.py and certificates.legal_moves) -------- */

/* Tile i (on the board in occ) is free: one of its windows is empty.  Every tile has six windows (read_spec
 * pads them with the tile itself, never empty while it is there), checked without a branch. */
INLINE int is_free(const Spec *s, int i, mask occ) {
    if (HAVE_PEXT && s->pext) return (int)(s->freetab[i] >> pext(occ, s->waits_on[i]) & 1);
    const mask *w = s->win[i];
    return !(occ & w[0]) | !(occ & w[1]) | !(occ & w[2]) | !(occ & w[3]) | !(occ & w[4]) | !(occ & w[5]);
}

static mask free_set(const Spec *s, mask occ) {
    mask f = 0;
    for (mask x = occ; x; x &= x - 1) {
        int i = low_index(x);
        if (is_free(s, i, occ)) f |= (mask)1 << i;
    }
    return f;
}

/* The free set after removing r from occ: only neighbours of removed tiles can change. */
INLINE mask child_free(const Spec *s, mask occ, mask fr, mask r) {
    mask cand = 0;
    for (mask x = r; x; x &= x - 1) cand |= s->nbr[low_index(x)];
    mask child = occ & ~r;
    fr &= ~r;
    cand &= child & ~fr;
    for (; cand; cand &= cand - 1) {
        int i = low_index(cand);
        if (is_free(s, i, child)) fr |= (mask)1 << i;
    }
    return fr;
}

INLINE mask current_metal(const Spec *s, mask occ) {
    for (int i = 0; i < s->nmet; i++)
        if (occ >> s->met[i] & 1) return (mask)1 << s->met[i];
    return 0;
}

/* The tile counts cannot pair up (sigmar.models.rules.counts_problem on masks). */
INLINE int counts_dead(const Spec *s, mask occ) {
    int fives = pc(occ & s->qx), odd = 0;
    for (int e = 0; e < 4; e++) {
        int left = pc(occ & s->el[e]) - fives;
        if (left < 0) return 1;
        odd += left & 1;
    }
    int salt = pc(occ & s->salt);
    if (salt < odd || ((salt - odd) & 1)) return 1;
    if (pc(occ & s->vitae) != pc(occ & s->mors)) return 1;
    return pc(occ & s->qs) != pc(occ & s->nongold);
}

/* Some tiles of occ can never leave: a stuck set, by the worklist of pruning.Pruning.stuck_set_fast (its
 * docstring argues it; the same rules on the same tables).  The set worked on starts as every tile; the locked
 * ones are the tiles not free and the metals above the current one; a tile leaves when it is unlocked and gold
 * or has an unlocked partner, which may unlock its neighbours (and, a metal, the metals above it).  What is left
 * is the same whatever order the tiles leave in, so the worklist is a mask. */
INLINE int stuck(const Spec *s, mask occ, mask fr) {
    mask metals = occ & s->metals, st = occ;
    mask locked = (occ & ~fr) | (metals & ~current_metal(s, occ)), loose = occ & ~locked, todo = 0;
    for (mask x = loose; x; x &= x - 1) {
        int t = low_index(x);
        if (t == s->gold || (s->partners[t] & loose)) todo |= (mask)1 << t;
    }
    while (todo) {
        int u = low_index(todo);
        mask ub = (mask)1 << u;
        todo ^= ub;
        if (!(st & ub)) continue;
        st ^= ub;
        mask cand = s->nbr[u] & locked;
        if (ub & metals) cand |= locked & metals;
        for (; cand; cand &= cand - 1) {
            int v = low_index(cand);
            if (s->lower[v] & st) continue;
            const mask *w = s->win[v];
            if ((w[0] & st) && (w[1] & st) && (w[2] & st) && (w[3] & st) && (w[4] & st) && (w[5] & st)) continue;
            mask vb = (mask)1 << v;
            locked ^= vb;
            loose |= vb;
            if (v == s->gold || (s->partners[v] & loose)) todo |= vb;
            todo |= s->partners[v] & st & loose;
        }
    }
    return st != 0;
}

/* The kinds of tiles a move takes (its *type*): a pair of element e (e), salt and element e (4 + e), two salts,
 * vitae and mors, a metal and quicksilver, gold, quintessence with the four elements.  The tile counts after a
 * move depend on its type alone. */
enum { T_SALT_PAIR = 8, T_LIFE, T_METAL, T_GOLD, T_QUINT, NTYPES };

/* The types of move after which the tile counts of occ, which can pair up, no longer can (counts_dead() of the
 * position after, worked out from occ's counts): only a move taking an element or salt changes what counts_dead
 * weighs (the others take vitae with mors, quicksilver with a metal other than gold, gold, or quintessence with
 * one tile of each element: each side of its test as much). */
INLINE uint32_t dead_types(const Spec *s, mask occ) {
    int fives = pc(occ & s->qx), salt = pc(occ & s->salt), left[4], odd = 0;
    uint32_t dead = 0;
    for (int e = 0; e < 4; e++) {
        left[e] = pc(occ & s->el[e]) - fives;
        odd += left[e] & 1;
    }
    for (int e = 0; e < 4; e++) {
        if (left[e] < 2) dead |= 1u << e;                                                  /* none of e to pair */
        if (left[e] < 1 || salt - 1 < odd + (left[e] & 1 ? -1 : 1)) dead |= 1u << (4 + e); /* e made odd: salt */
    }
    if (salt - 2 < odd) dead |= 1u << T_SALT_PAIR;
    return dead;
}

/* Every legal move of occ as a removal mask, in certificates.legal_moves' order, and its type, leaving out those
 * of the types in `skip` (counted only): how many are listed (-1 past `room`), every legal move counted in *all. */
INLINE long moves_of(const Spec *s, mask occ, mask fr, mask *out, uint8_t *type, long room, uint32_t skip, long *all) {
    long c = 0, skipped = 0;
    int salts[MAXT], ns = 0;
#define PUT(m, t)                  \
    do {                           \
        if (c >= room) return -1; \
        type[c] = (t);             \
        out[c++] = (m);            \
    } while (0)
    for (mask x = fr & s->salt; x; x &= x - 1) salts[ns++] = low_index(x);
    for (int e = 0; e < 4; e++) {
        int t[MAXT], nt = 0;
        for (mask x = fr & s->el[e]; x; x &= x - 1) t[nt++] = low_index(x);
        if (skip >> e & 1)
            skipped += nt * (nt - 1) / 2;
        else
            for (int a = 0; a < nt; a++)
                for (int b = a + 1; b < nt; b++) PUT((mask)1 << t[a] | (mask)1 << t[b], e);
        if (skip >> (4 + e) & 1)
            skipped += ns * nt;
        else
            for (int k = 0; k < ns; k++)
                for (int a = 0; a < nt; a++) PUT((mask)1 << salts[k] | (mask)1 << t[a], 4 + e);
    }
    if (skip >> T_SALT_PAIR & 1)
        skipped += ns * (ns - 1) / 2;
    else
        for (int a = 0; a < ns; a++)
            for (int b = a + 1; b < ns; b++) PUT((mask)1 << salts[a] | (mask)1 << salts[b], T_SALT_PAIR);
    {
        int v[MAXT], nv = 0, m[MAXT], nm = 0;
        for (mask x = fr & s->vitae; x; x &= x - 1) v[nv++] = low_index(x);
        for (mask x = fr & s->mors; x; x &= x - 1) m[nm++] = low_index(x);
        for (int a = 0; a < nv; a++)
            for (int b = 0; b < nm; b++) PUT((mask)1 << v[a] | (mask)1 << m[b], T_LIFE);
    }
    mask cur = current_metal(s, occ);
    if (cur && (fr & cur)) {
        if (cur == s->gold_bit)
            PUT(cur, T_GOLD);
        else
            for (mask x = fr & s->qs; x; x &= x - 1) PUT(cur | (x & -x), T_METAL);
    }
    if (fr & s->qx) {
        /* quintessence with one free tile of each element, in the order of product() over the masks */
        mask groups[5] = {fr & s->qx, fr & s->el[0], fr & s->el[1], fr & s->el[2], fr & s->el[3]};
        int ids[5][MAXT], sizes[5];
        for (int g = 0; g < 5; g++) {
            sizes[g] = 0;
            for (mask x = groups[g]; x; x &= x - 1) ids[g][sizes[g]++] = low_index(x);
            if (!sizes[g]) goto listed;
        }
        int pick[5] = {0, 0, 0, 0, 0};
        for (;;) {
            mask m = 0;
            for (int g = 0; g < 5; g++) m |= (mask)1 << ids[g][pick[g]];
            PUT(m, T_QUINT);
            int g = 4;
            while (g >= 0 && ++pick[g] == sizes[g]) pick[g--] = 0;
            if (g < 0) break;
        }
    }
#undef PUT
listed:
    *all = c + skipped;
    return c;
}

/* -- the walk: phase 1, layer by layer ----------------------------------------------------------- */

/* Every move's size is fixed by its kind, so a position's depth (moves played) is a function of its tiles and
 * every move goes from depth d to depth d + 1: the graph falls into layers.  Phase 1 walks it breadth first.
 * Expanding layer d, the positions after its moves are looked up in a table of layer d + 1 alone, many at a
 * time and each fetched ahead of its turn, instead of one by one down a depth-first walk through a table of
 * every position (whose random reads, one cache miss each, were most of the walk's time); each position keeps
 * its moves' ends as indexes into the next layer (climb() reads them back, from the deepest layer up). */

/* What the positions above an alive position read of it while the layers are climbed. */
typedef struct {
    u128 seq;              /* its clearing sequences, exactly (an overflow is flagged) */
    double seqd, safe_sum; /* the same as a float, and the safe moves summed along them */
} Vals;

typedef u128 Slot;
static const u128 KEY_MASK = ((u128)1 << KEY_BITS) - 1;
#define INDEX_OF(slot) ((int32_t)((slot) >> KEY_BITS))

/* A position after one move of a position being expanded: its tiles, free set, key and hash. */
typedef struct {
    mask occ, fr, waited;
    u128 key;
    uint64_t hash;
    int32_t known; /* CLEAR, DEAD (the counts), EMPTY: to be looked up, or SAME: the same as the earlier `same` */
    int32_t same;
} Next;

typedef struct {
    mask *occ, *fr;  /* per position, in the order they were found */
    mask *waited;    /* its free tiles that a tile not free waits on (in one of its windows) */
    uint64_t *counts; /* its key's counts (the loose tiles of each kind) */
    uint16_t *k;     /* its legal moves */
    uint16_t *kf;    /* those followed (fwd holds their ends): the moves after which the counts cannot pair up aside */
    uint64_t n, cap;
    uint64_t edge_base, nedges; /* where its positions' moves' ends start in Walk.fwd, and how many */
} Layer;

/* Moves alike (the same core tiles taken, the same kinds of loose ones) found earlier in this position: a small
 * table by hash, its entries this position's while their stamp is. */
#define SEEN_SLOTS 128
typedef struct {
    mask core;
    uint64_t units;
    uint32_t stamp;
    int32_t at;
} Seen;

/* The positions after the moves of a run of a layer's positions, keyed (their slots fetched later), for one
 * thread: from position `from` until `to` or until `room` entries are filled (then `stop` says where). */
typedef struct {
    const Spec *s;
    Layer *cur;
    mask *moves;    /* MAXK + 1 */
    uint8_t *types; /* MAXK + 1: each move's type */
    Next *nexts;    /* room + MAXK + 1 */
    Seen *seen;     /* SEEN_SLOTS */
    uint32_t stamp; /* the position's, in seen */
    long room, nb;
    uint64_t from, to, stop, followed, cut;
    int too_many, prune; /* prune: look for a stuck set in every position */
} Gen;

/* A second thread for the walk: `both` runs a job here and another on it, and returns when both are done. */
typedef struct {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    int state; /* 0 idle, 1 a job posted, 2 told to end */
    void (*fn)(void *);
    void *arg;
} Helper;

/* A large layer expanded by two threads: the layer is cut into runs of ROUND positions, run c found (generate())
 * into buffer c % NBUF by whichever thread is free, and this thread looks the runs up in order, each as soon as
 * it is found, while the other finds the next ones (so the lookups, which only this thread does, overlap the
 * finding instead of following it).  A buffer is taken for run c + NBUF once run c is looked up. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t changed;
    Gen *bufs;
    int state[NBUF]; /* 0 free, 1 being found, 2 found */
    uint64_t n, next; /* the layer's positions; the first of the next run to find */
    int done;
} Pipe;

typedef struct {
    const Spec *s;
    Layer layers[MAXDEPTH];
    int nlayers;
    Slot *table; /* the next layer's, while it is found (its memory kept from layer to layer: table_room slots) */
    uint64_t cap, used, layer_used, table_room;
    int32_t *fwd; /* per move of every position, layer after layer: the index of its end in the next layer */
    uint64_t nfwd, fwd_cap;
    /* what the climb found: the alive positions, the start's figures, random play's chance as num / den */
    uint64_t nids;
    int start_alive, first, safe_first;
    Vals start_vals;
    uint64_t *num, *den;
    uint32_t num_len, den_len;
    double forward_done;
    /* limits and counters */
    double deadline;
    uint64_t max_states, followed, cut;
    int stopped, overflow, too_many_moves, no_memory;
    /* the threads: a second one where the machine has two cores, and each one's positions after moves */
    Helper helper;
    int helper_on, threads, prune; /* prune: stuck sets may be looked for (expand()) */
    int keep;                      /* take the kept buffers, and leave this walk's to the next (kept_take()) */
    Gen gen[1 + NBUF]; /* one thread's, then the two threads' buffers (bufs) */
    Gen *bufs;
    Pipe pipe;
    int trap_depth;
    mask trap_before, trap_move;
    int trap_index; /* the losing move's place in moves_of's list */
} Walk;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A walk asked to keep (walk()'s `keep`: a caller that walks many boards in one process, as generate --stats and
 * --difficulty and the benchmark do) leaves its largest buffers (the moves' ends, Walk.fwd, and the climb's two
 * buffers of records: on a side-6 board of two million positions some 100 and 2 x 50 MB) to the next such walk:
 * fresh memory is faulted in and zeroed by the kernel page by page (a tenth of a walk's CPU).  A kept buffer is
 * marked free to the kernel (MADV_FREE), which takes its pages back when memory runs short (a page taken back
 * reads as zero: every buffer here is written before it is read); at most KEEP_MAX bytes each.  A walk not asked
 * to keep frees what is kept (a process whose memory is watched, as the workbench's workers are, holds none). */
typedef struct {
    void *p;
    size_t bytes;
} Kept;
static Kept kept_fwd, kept_records[2];
static pthread_mutex_t kept_mu = PTHREAD_MUTEX_INITIALIZER;
#define KEEP_MIN ((size_t)1 << 20)
#define KEEP_MAX ((size_t)512 << 20)

/* Free every kept buffer. */
static void kept_release(void) {
    pthread_mutex_lock(&kept_mu);
    Kept *all[3] = {&kept_fwd, &kept_records[0], &kept_records[1]};
    for (int i = 0; i < 3; i++) {
        free(all[i]->p);
        all[i]->p = NULL;
    }
    pthread_mutex_unlock(&kept_mu);
}

/* The buffer kept in *k (NULL when none), its size in *bytes. */
static void *kept_take(Kept *k, size_t *bytes) {
    pthread_mutex_lock(&kept_mu);
    void *p = k->p;
    *bytes = p ? k->bytes : 0;
    k->p = NULL;
    pthread_mutex_unlock(&kept_mu);
    return p;
}

/* Keep p (bytes long, from malloc) in *k for the next walk, or free it (too small or large, or one kept already). */
static void kept_put(Kept *k, void *p, size_t bytes) {
    if (p && bytes >= KEEP_MIN && bytes <= KEEP_MAX) {
#ifdef MADV_FREE
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        uintptr_t from = ((uintptr_t)p + page - 1) / page * page, to = ((uintptr_t)p + bytes) / page * page;
        if (to > from) madvise((void *)from, to - from, MADV_FREE);
#endif
        pthread_mutex_lock(&kept_mu);
        if (!k->p) {
            k->p = p;
            k->bytes = bytes;
            p = NULL;
        }
        pthread_mutex_unlock(&kept_mu);
    }
    free(p);
}

INLINE uint64_t hash_key(u128 key) {
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull ^ ((uint64_t)(key >> 64) + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

/* The tiles the blocked ones wait on: every tile in one of their windows. */
INLINE mask waited_on(const Spec *s, mask blocked) {
    mask waited = 0;
    for (mask x = blocked; x; x &= x - 1) waited |= s->waits_on[low_index(x)];
    return waited;
}

/* The counts of a key: how many of the tiles `loose` of each kind. */
INLINE uint64_t counts_of(const Spec *s, mask loose) {
    uint64_t counts = 0;
    if (loose)
        for (int k = 0; k < s->nkinds; k++) counts |= (uint64_t)pc(loose & s->kinds[k]) << s->count_shift[k];
    return counts;
}

/* The counts of the tiles x, one at a time (for the few a move takes or makes loose). */
INLINE uint64_t units_of(const Spec *s, mask x) {
    uint64_t counts = 0;
    for (; x; x &= x - 1) counts += s->unit[low_index(x)];
    return counts;
}

INLINE u128 key_of(mask core, uint64_t counts) { return core | (u128)counts << 64; }

/* The slot of key in a table of cap slots: its own, or the empty one where it goes (no key is 0). */
static inline Slot *find_hashed(Slot *table, uint64_t cap, u128 key, uint64_t hash) {
    uint64_t i = hash & (cap - 1);
    for (;;) {
        Slot *slot = &table[i];
        if (!*slot || (*slot & KEY_MASK) == key) return slot;
        i = (i + 1) & (cap - 1);
    }
}

/* A table of `cap` slots, zeroed, in huge pages where the kernel gives them (its reads are random: with 4 KB
 * pages most of them missed the TLB). */
static Slot *new_table(uint64_t cap) {
    size_t bytes = sizeof(Slot) * cap, huge = (size_t)2 << 20;
    void *table = NULL;
    if (bytes >= huge) {
        size_t rounded = (bytes + huge - 1) / huge * huge;
        if (posix_memalign(&table, huge, rounded)) return NULL;
#ifdef MADV_HUGEPAGE
        madvise(table, rounded, MADV_HUGEPAGE);
#endif
    } else {
        table = malloc(bytes);
    }
    if (table) memset(table, 0, bytes);
    return table;
}

static int grow_table(Walk *w) {
    uint64_t old_cap = w->cap;
    Slot *old = w->table;
    Slot *table = new_table(old_cap * 2);
    if (!table) return -1;
    w->table = table;
    w->cap = w->table_room = old_cap * 2;
    for (uint64_t i = 0; i < old_cap; i++)
        if (old[i]) *find_hashed(table, w->cap, old[i] & KEY_MASK, hash_key(old[i] & KEY_MASK)) = old[i];
    free(old);
    return 0;
}

static int layer_room(Layer *layer, uint64_t need) {
    if (need <= layer->cap) return 0;
    uint64_t more = layer->cap ? layer->cap : 1024;
    while (more < need) more *= 2;
    mask *occ = realloc(layer->occ, sizeof(mask) * more);
    if (!occ) return -1;
    layer->occ = occ;
    mask *fr = realloc(layer->fr, sizeof(mask) * more);
    if (!fr) return -1;
    layer->fr = fr;
    mask *waited = realloc(layer->waited, sizeof(mask) * more);
    if (!waited) return -1;
    layer->waited = waited;
    uint64_t *counts = realloc(layer->counts, sizeof(uint64_t) * more);
    if (!counts) return -1;
    layer->counts = counts;
    uint16_t *k = realloc(layer->k, sizeof(uint16_t) * more);
    if (!k) return -1;
    layer->k = k;
    uint16_t *kf = realloc(layer->kf, sizeof(uint16_t) * more);
    if (!kf) return -1;
    layer->kf = kf;
    layer->cap = more;
    return 0;
}

static int32_t stop_with(Walk *w, int32_t why) {
    w->stopped = 1;
    return why;
}

/* Positions expanded a batch at a time: their moves' ends are looked up together, each fetched this many ahead;
 * with two threads, each finds the moves' ends of ROUND positions at a time (up to TBATCH of them). */
#define BATCH 512
#define AHEAD 16
#define ROUND 256
#define TBATCH 8192
/* A layer's positions are looked into for stuck sets when one in PRUNE_RATE of its first PRUNE_SAMPLE has one. */
#define PRUNE_SAMPLE 256
#define PRUNE_RATE 8

/* What taking the core tiles `taken` of a position leaves (the same whatever loose tiles the move takes with them:
 * a loose tile lies in no window of a blocked tile, nor is waited on). */
typedef struct {
    mask fr;          /* the free set after (the move's loose tiles still in it) */
    mask core;        /* the core after */
    mask waited;      /* the free tiles waited on after (Layer.waited) */
    uint64_t released; /* the counts of the core tiles that become loose */
} Taking;

/* waited: the free tiles of occ that a blocked tile waits on (what the key's core holds besides the blocked tiles
 * and the metals), known from the position before (a move changes it only around the tiles it frees). */
INLINE void taking(const Spec *s, mask occ, mask fr, mask blocked, mask waited, mask core, mask taken, Taking *out) {
    mask fr_after = child_free(s, occ, fr, taken), freed = fr_after & ~fr, left = occ & ~taken;
    /* The core after the move: the blocked tiles less those it frees, the free tiles they wait on (a free tile
     * waited on by a freed tile stays so while another blocked tile waits on it; a freed tile is waited on when a
     * tile still blocked waits on it), the metals; the tiles that leave the core become loose. */
    mask blocked_after = blocked & ~freed, waited_after = waited & left;
    if (freed) {
        mask touched = 0;
        for (mask x = freed; x; x &= x - 1) touched |= s->waits_on[low_index(x)];
        touched = ((touched & waited & left) | freed) & ~s->metals; /* (a metal stays core) */
        waited_after &= ~touched;
        for (; touched; touched &= touched - 1)
            waited_after |= (mask)((s->waiters[low_index(touched)] & blocked_after) != 0) << low_index(touched);
    }
    out->fr = fr_after;
    out->core = left & (blocked_after | waited_after | s->metals);
    out->waited = waited_after;
    out->released = units_of(s, core & ~taken & ~out->core);
}

HOT static void generate(Gen *g) {
    const Spec *s = g->s;
    Layer *cur = g->cur;
    mask *moves = g->moves;
    uint8_t *types = g->types;
    Next *nexts = g->nexts;
    Seen *seen = g->seen;
    long nb = 0;
    uint64_t i = g->from;
    for (; i < g->to && nb < g->room; i++) {
        mask occ = cur->occ[i], fr = cur->fr[i], waited = cur->waited[i];
        uint64_t counts = cur->counts[i];
        if (g->prune && stuck(s, occ, fr)) { /* dead, and no move of it is followed (climb() finds it dead) */
            cur->k[i] = cur->kf[i] = 0;
            g->cut++;
            continue;
        }
        /* The moves after which the tile counts cannot pair up are counted, not listed (a quarter of the moves on
         * side-6 boards): each leads to a dead position, which climb() knows from k and kf. */
        long all, km = moves_of(s, occ, fr, moves, types, MAXK + 1, dead_types(s, occ), &all);
        if (km < 0 || all > MAXK) {
            g->too_many = 1;
            break;
        }
        cur->k[i] = (uint16_t)all;
        cur->kf[i] = (uint16_t)km;
        g->followed += all;
        g->cut += all - km;
        /* A move takes free tiles only, so a child's blocked tiles are occ's less those it frees: when it
         * frees none (most moves), what they wait on is occ's too. */
        mask blocked = occ & ~fr, core = occ & (blocked | waited | s->metals), loose = occ & ~core;
        uint32_t stamp = ++g->stamp;
        int nseen = 0;
        /* Taking a loose tile frees nothing and leaves the core as it is, so the position after a move is
         * fixed by the core tiles it takes and the kinds of the loose ones: moves alike in both lead to the
         * same key (a pair of loose fire tiles out of five: ten moves; salt with one of them: five), which
         * is found once. */
        for (long j = 0; j < km; j++) {
            Next *next = &nexts[nb++];
            mask move = moves[j], taken = move & core;
            next->occ = occ & ~move;
            if (!next->occ) {
                next->known = CLEAR;
                continue;
            }
            uint64_t units = units_of(s, move & loose);
            if (units) { /* (a move of core tiles alone is the only one taking them) */
                uint64_t h = (taken * 0x9E3779B97F4A7C15ull ^ units * 0xC2B2AE3D27D4EB4Full) >> 57;
                Seen *e = &seen[h];
                while (e->stamp == stamp && (e->core != taken || e->units != units))
                    e = &seen[(e - seen + 1) & (SEEN_SLOTS - 1)];
                if (e->stamp == stamp) {
                    next->known = SAME;
                    next->same = e->at;
                    continue;
                }
                if (nseen < SEEN_SLOTS / 2) { /* (half full at most: a free slot ends every look) */
                    *e = (Seen){taken, units, stamp, (int32_t)(nb - 1)};
                    nseen++;
                }
            }
            next->known = EMPTY;
            if (!taken) { /* loose tiles only */
                next->fr = fr & ~move;
                next->waited = waited;
                next->key = key_of(core, counts - units);
                next->hash = hash_key(next->key);
                continue;
            }
            Taking by;
            taking(s, occ, fr, blocked, waited, core, taken, &by);
            next->fr = by.fr & ~move;
            next->waited = by.waited;
            next->key = key_of(by.core, counts - units + by.released);
            next->hash = hash_key(next->key);
        }
    }
    g->stop = i;
    g->nb = nb;
}

/* Look the positions a Gen found up in the next layer's table, in order: each one's index, a new one's added
 * (0, or STOP when a limit or a memory failure ended the walk). */
static int insert_found(Walk *w, Gen *g) {
    Layer *nxt = &w->layers[g->cur - w->layers + 1];
    Next *nexts = g->nexts;
    long nb = g->nb;
    w->followed += g->followed;
    w->cut += g->cut;
    g->followed = g->cut = 0;
    if (g->too_many) {
        w->too_many_moves = 1;
        return stop_with(w, STOP);
    }
    if (w->nfwd + nb > w->fwd_cap) {
        uint64_t more = w->fwd_cap ? w->fwd_cap : 1 << 16;
        while (more < w->nfwd + nb) more *= 2;
        int32_t *bigger = realloc(w->fwd, sizeof(int32_t) * more);
        if (!bigger) goto no_memory;
        w->fwd = bigger;
        w->fwd_cap = more;
    }
    uint64_t batch_base = w->nfwd;
    for (long j = 0; j < nb && j < AHEAD; j++)
        if (nexts[j].known == EMPTY) __builtin_prefetch(&w->table[nexts[j].hash & (w->cap - 1)]);
    for (long j = 0; j < nb; j++) {
        if (j + AHEAD < nb && nexts[j + AHEAD].known == EMPTY)
            __builtin_prefetch(&w->table[nexts[j + AHEAD].hash & (w->cap - 1)]);
        Next *next = &nexts[j];
        if (next->known == SAME) {
            w->fwd[w->nfwd++] = w->fwd[batch_base + next->same];
            continue;
        }
        if (next->known != EMPTY) {
            w->fwd[w->nfwd++] = next->known;
            continue;
        }
        Slot *slot = find_hashed(w->table, w->cap, next->key, next->hash);
        if (*slot) {
            w->fwd[w->nfwd++] = INDEX_OF(*slot);
            continue;
        }
        if (w->used >= w->max_states || nxt->n >= MAX_IDS) return stop_with(w, STOP);
        if (nxt->n >= nxt->cap && layer_room(nxt, nxt->n + 1)) goto no_memory;
        uint64_t index = nxt->n++;
        nxt->occ[index] = next->occ;
        nxt->fr[index] = next->fr;
        nxt->waited[index] = next->waited;
        nxt->counts[index] = (uint64_t)(next->key >> 64);
        *slot = next->key | (u128)index << KEY_BITS;
        w->used++;
        w->fwd[w->nfwd++] = (int32_t)index;
        if (++w->layer_used * 2 > w->cap && grow_table(w)) goto no_memory;
    }
    return 0;
no_memory:
    w->no_memory = 1;
    return stop_with(w, STOP);
}

static void *helper_main(void *p) {
    Helper *h = p;
    pthread_mutex_lock(&h->mu);
    for (;;) {
        while (h->state == 0) pthread_cond_wait(&h->go, &h->mu);
        if (h->state == 2) break;
        pthread_mutex_unlock(&h->mu);
        h->fn(h->arg);
        pthread_mutex_lock(&h->mu);
        h->state = 0;
        pthread_cond_signal(&h->done);
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

static int helper_start(Helper *h) {
    h->state = 0;
    if (pthread_mutex_init(&h->mu, NULL)) return -1;
    if (pthread_cond_init(&h->go, NULL) || pthread_cond_init(&h->done, NULL)) return -1;
    return pthread_create(&h->thread, NULL, helper_main, h) ? -1 : 0;
}

static void helper_end(Helper *h) {
    pthread_mutex_lock(&h->mu);
    h->state = 2;
    pthread_cond_signal(&h->go);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->thread, NULL);
    pthread_cond_destroy(&h->go);
    pthread_cond_destroy(&h->done);
    pthread_mutex_destroy(&h->mu);
}

/* Start fn(arg) on the helper; helper_wait() returns when it is done. */
static void helper_post(Helper *h, void (*fn)(void *), void *arg) {
    pthread_mutex_lock(&h->mu);
    h->fn = fn;
    h->arg = arg;
    h->state = 1;
    pthread_cond_signal(&h->go);
    pthread_mutex_unlock(&h->mu);
}

static void helper_wait(Helper *h) {
    pthread_mutex_lock(&h->mu);
    while (h->state == 1) pthread_cond_wait(&h->done, &h->mu);
    pthread_mutex_unlock(&h->mu);
}

static void both(Helper *h, void (*fn)(void *), void *here, void *there) {
    helper_post(h, fn, there);
    fn(here);
    helper_wait(h);
}

/* The next run to find, claimed into its buffer (the lock held), or -1 when there is none or its buffer is busy. */
static int pipe_claim(Pipe *p) {
    if (p->done || p->next >= p->n) return -1;
    int b = (int)(p->next / ROUND % NBUF);
    if (p->state[b]) return -1;
    Gen *g = &p->bufs[b];
    g->from = p->next;
    g->to = p->next + ROUND < p->n ? p->next + ROUND : p->n;
    g->room = TBATCH;
    p->next = g->to;
    p->state[b] = 1;
    return b;
}

/* Find runs until the layer is done (the helper's job; this thread does the same between its lookups). */
static void pipe_find(void *arg) {
    Pipe *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->done) {
        int b = pipe_claim(p);
        if (b < 0) {
            if (p->next >= p->n) break;
            pthread_cond_wait(&p->changed, &p->mu);
            continue;
        }
        pthread_mutex_unlock(&p->mu);
        generate(&p->bufs[b]);
        pthread_mutex_lock(&p->mu);
        p->state[b] = 2;
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->mu);
}

/* Layer d expanded by both threads (expand()'s other half): 0, or STOP. */
static int expand_two(Walk *w, Layer *cur) {
    Pipe *p = &w->pipe;
    p->bufs = w->bufs;
    p->n = cur->n;
    p->next = 0;
    p->done = 0;
    for (int b = 0; b < NBUF; b++) {
        p->state[b] = 0;
        p->bufs[b].cur = cur;
    }
    helper_post(&w->helper, pipe_find, p);
    int out = 0;
    uint64_t runs = (cur->n + ROUND - 1) / ROUND;
    for (uint64_t c = 0; c < runs && !out; c++) {
        int b = (int)(c % NBUF);
        Gen *g = &p->bufs[b];
        if (now() > w->deadline) {
            out = stop_with(w, STOP);
            break;
        }
        pthread_mutex_lock(&p->mu);
        while (p->state[b] != 2) {
            int mine = pipe_claim(p);
            if (mine < 0) {
                pthread_cond_wait(&p->changed, &p->mu);
                continue;
            }
            pthread_mutex_unlock(&p->mu);
            generate(&p->bufs[mine]);
            pthread_mutex_lock(&p->mu);
            p->state[mine] = 2;
            pthread_cond_broadcast(&p->changed);
        }
        pthread_mutex_unlock(&p->mu);
        out = insert_found(w, g);
        while (!out && g->stop < g->to) { /* its entries ran out before its run did: the rest of the run here */
            g->from = g->stop;
            generate(g);
            out = insert_found(w, g);
        }
        pthread_mutex_lock(&p->mu);
        p->state[b] = 0;
        pthread_cond_broadcast(&p->changed);
        pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_lock(&p->mu);
    p->done = 1;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mu);
    helper_wait(&w->helper);
    if (out) { /* what was found and not looked up is dropped, its counts with it */
        for (int b = 0; b < NBUF; b++) p->bufs[b].followed = p->bufs[b].cut = 0;
    }
    return out;
}

/* Expand layer d into layer d + 1 (0, or STOP when a limit or a memory failure ended the walk).  With two
 * threads, each finds the positions after the moves of a run of ROUND positions, and this one then looks
 * them all up in order (so the layer's order, and every figure, is the one thread's). */
static int expand(Walk *w, int d) {
    Layer *cur = &w->layers[d], *nxt = &w->layers[d + 1];
    Gen *a = &w->gen[0];
    memset(nxt, 0, sizeof *nxt);
    w->cap = 4096;
    while (w->cap < 4 * cur->n) w->cap *= 2;
    if (w->table && w->table_room >= w->cap && w->table_room <= 2 * w->cap) {
        /* the last layer's memory, already the process's (no page faults); not kept past twice the need, so
         * the walk's peak stays the positions' */
        memset(w->table, 0, sizeof(Slot) * w->cap);
    } else {
        free(w->table);
        w->table = new_table(w->cap);
        w->table_room = w->cap;
    }
    w->layer_used = 0;
    if (!w->table) {
        w->no_memory = 1;
        return stop_with(w, STOP);
    }
    cur->edge_base = w->nfwd;
    a->cur = cur;
    /* Stuck sets are looked for in this layer's positions when its first ones show enough of them (a position
     * shown dead is not expanded; on most boards nearly every position can be cleared, and looking costs more
     * than it saves): a choice made from the layer alone, so the graph is the same with one thread or two. */
    uint64_t sample = !w->prune ? 0 : cur->n < PRUNE_SAMPLE ? cur->n : PRUNE_SAMPLE, stuck_found = 0;
    for (uint64_t i = 0; i < sample; i++) stuck_found += stuck(w->s, cur->occ[i], cur->fr[i]);
    int prune = w->prune && stuck_found * PRUNE_RATE >= sample && stuck_found > 0;
    for (int t = 0; t < 1 + NBUF; t++) w->gen[t].prune = prune;
    if (!w->helper_on && w->threads > 1 && cur->n >= 2 * ROUND) /* started for the first large layer */
        w->helper_on = helper_start(&w->helper) == 0;
    if (w->helper_on && cur->n >= 2 * ROUND) {
        if (expand_two(w, cur)) return STOP;
    } else {
        for (uint64_t i0 = 0; i0 < cur->n;) {
            if (now() > w->deadline) return stop_with(w, STOP);
            a->from = i0;
            a->to = cur->n;
            a->room = BATCH;
            generate(a);
            if (insert_found(w, a)) return STOP;
            i0 = a->stop;
        }
    }
    cur->nedges = w->nfwd - cur->edge_base;
    free(cur->fr); /* expanded: its free sets are done with */
    free(cur->waited);
    free(cur->counts);
    cur->fr = cur->waited = NULL;
    cur->counts = NULL;
    return 0;
}

/* -- phase 2, the climb: exact arithmetic on unsigned integers of 64-bit limbs, least significant first ---- */

/* a mod k */
static uint64_t limbs_mod(const uint64_t *a, uint32_t n, uint64_t k) {
    u128 r = 0;
    for (uint32_t i = n; i-- > 0;) r = ((r << 64) | a[i]) % k;
    return (uint64_t)r;
}

/* a *= m in place (a has room for n + 1 limbs); the new length */
static uint32_t limbs_mul_small(uint64_t *a, uint32_t n, uint64_t m) {
    uint64_t carry = 0;
    for (uint32_t i = 0; i < n; i++) {
        u128 t = (u128)a[i] * m + carry;
        a[i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
    if (carry) a[n++] = carry;
    return n;
}

/* out = a / k (exact or not: the quotient); the quotient's length */
static uint32_t limbs_div_small(const uint64_t *a, uint32_t n, uint64_t k, uint64_t *out) {
    u128 r = 0;
    for (uint32_t i = n; i-- > 0;) {
        u128 cur = (r << 64) | a[i];
        out[i] = (uint64_t)(cur / k);
        r = cur % k;
    }
    while (n > 1 && !out[n - 1]) n--;
    return n;
}

/* out (an + bn limbs, overwritten) = a * b */
static void limbs_mul(const uint64_t *a, uint32_t an, const uint64_t *b, uint32_t bn, uint64_t *out) {
    memset(out, 0, sizeof(uint64_t) * (an + bn));
    for (uint32_t i = 0; i < an; i++) {
        uint64_t carry = 0;
        if (!a[i]) continue;
        for (uint32_t j = 0; j < bn; j++) {
            u128 t = (u128)a[i] * b[j] + out[i + j] + carry;
            out[i + j] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
        out[i + bn] = carry;
    }
}

/* acc (n + 1 limbs) += x (n limbs) */
INLINE void limbs_add(uint64_t *acc, const uint64_t *x, uint32_t n) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    /* One carry chain, two limbs a turn (the climb's sums: an add a move, of up to twenty limbs; the compiler's loop
     * saved and restored the carry at every limb).  dec, lea, mov and the jumps leave the carry flag alone. */
    uint64_t i = 0, turns = (uint64_t)(n >> 1) + 1, t0, t1;
    __asm__ volatile("testq $1, %[n]\n\t"
                     "jz 1f\n\t"
                     "movq (%[x]), %[t0]\n\t"
                     "addq %[t0], (%[a])\n\t"
                     "movl $1, %k[i]\n"
                     "1:\n\t"
                     "decq %[turns]\n\t"
                     "jz 2f\n\t"
                     "movq (%[x],%[i],8), %[t0]\n\t"
                     "movq 8(%[x],%[i],8), %[t1]\n\t"
                     "adcq %[t0], (%[a],%[i],8)\n\t"
                     "adcq %[t1], 8(%[a],%[i],8)\n\t"
                     "leaq 2(%[i]), %[i]\n\t"
                     "jmp 1b\n"
                     "2:\n\t"
                     "adcq $0, (%[a],%[i],8)"
                     : [i] "+r"(i), [turns] "+r"(turns), [t0] "=&r"(t0), [t1] "=&r"(t1)
                     : [x] "r"(x), [a] "r"(acc), [n] "r"((uint64_t)n)
                     : "cc", "memory");
#elif defined(__x86_64__) && defined(__GNUC__)
    unsigned char carry = 0;
    unsigned long long sum;
    for (uint32_t i = 0; i < n; i++) {
        carry = __builtin_ia32_addcarryx_u64(carry, acc[i], x[i], &sum);
        acc[i] = sum;
    }
    acc[n] += carry;
#else
    unsigned char carry = 0;
    for (uint32_t i = 0; i < n; i++) {
        u128 t = (u128)acc[i] + x[i] + carry;
        acc[i] = (uint64_t)t;
        carry = (unsigned char)(t >> 64);
    }
    acc[n] += carry;
#endif
}

INLINE void limbs_add_one(uint64_t *acc, uint32_t n) {
    for (uint32_t i = 0; i <= n; i++)
        if (++acc[i]) return;
}

/* *buf with room for `need` bytes at least (its content not kept), or NULL (and *buf freed) when there is no memory. */
static void *room_for(void **buf, size_t *room, size_t need) {
    if (need > *room) {
        free(*buf);
        *buf = malloc(need);
        *room = *buf ? need : 0;
    }
    return *buf;
}

/* One thread's share of a layer in the climb: positions [from, to), whose moves' ends start at fwd[e]. */
typedef struct {
    Walk *w;
    Layer *layer;
    int d;
    const int32_t *fwd;
    const uint64_t *below;
    uint64_t stride, sw, from, to, e;
    uint32_t w_below;
    /* this layer's records, and M_d / k for each k of the layer (fpool + foff[k], flen[k] limbs) */
    uint64_t *here, *acc, *prod;
    uint64_t stride_here;
    uint32_t w_here;
    const uint64_t *fpool;
    const uint32_t *foff;
    const uint8_t *flen;
    /* what the share found, merged after */
    uint64_t nids;
    int overflow, stopped, trap_found, trap_index, first, safe_first; /* trap_index: among the moves followed */
    mask trap_before;
} Climb;

/* rec (w_here limbs, zero) = sum (sw limbs) * f (flen limbs), which fits in w_here limbs; prod: sw + flen limbs. */
INLINE void times_factor(uint64_t *rec, uint32_t w_here, const uint64_t *sum, uint32_t sw, const uint64_t *f,
                         uint32_t flen, uint64_t *prod) {
    if (flen <= 2) { /* M_d / k in one limb or two (nearly always): the product in place, a limb a pass */
        uint64_t carry = 0;
        uint32_t n = sw < w_here ? sw : w_here; /* (the product fits in w_here limbs) */
        for (uint32_t j = 0; j < n; j++) {
            u128 t = (u128)sum[j] * f[0] + carry;
            rec[j] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
        if (n < w_here) rec[n] = carry;
        if (flen == 2) { /* sum * f[1], a limb up */
            carry = 0;
            for (uint32_t j = 0; j < n && j + 1 < w_here; j++) {
                u128 t = (u128)sum[j] * f[1] + rec[j + 1] + carry;
                rec[j + 1] = (uint64_t)t;
                carry = (uint64_t)(t >> 64);
            }
            if (n + 1 < w_here) rec[n + 1] += carry;
        }
        return;
    }
    uint32_t plen = sw + flen;
    limbs_mul(sum, sw, f, flen, prod);
    memcpy(rec, prod, sizeof(uint64_t) * (plen < w_here ? plen : w_here));
}

/* This share's records, in order: which positions are alive, their sequences and safe moves, and their Q = M_d / k
 * times the sum of the Q after their moves (each record below read once, fetched ahead; the sum in a buffer of
 * its own, in the cache). */
HOT static void climb_layer(Climb *c) {
    const Layer *layer = c->layer;
    const int32_t *fwd = c->fwd;
    const uint64_t *below = c->below;
    uint64_t stride = c->stride, sw = c->sw, e = c->e, *acc = c->acc;
    uint32_t w_below = c->w_below, w_here = c->w_here;
    double deadline = c->w->deadline;
    int d = c->d, trap_depth = c->w->trap_depth;
    for (uint64_t i = c->from; i < c->to; i++) {
        int km = layer->kf[i], alive = 0, first_dead = -1; /* km: the moves followed; first_dead: among them */
        u128 seq = 0;
        double seqd = 0, safe = 0;
        uint64_t *rec = c->here + i * c->stride_here;
        memset(acc, 0, sizeof(uint64_t) * sw);
        if (!(i & 65535) && now() > deadline) {
            c->stopped = 1;
            return;
        }
        for (int j = 0; j < km; j++, e++) {
            if (e + AHEAD < layer->nedges) {
                int32_t ahead = fwd[e + AHEAD];
                if (ahead >= 0 && ahead != CLEAR) {
                    const uint64_t *next = below + (uint64_t)ahead * stride;
                    __builtin_prefetch(next);
                    __builtin_prefetch(next + stride - 1);
                }
            }
            int32_t at = fwd[e];
            if (at == CLEAR) {
                seq += 1;
                seqd += 1;
                limbs_add_one(acc, w_below);
                alive++;
                continue;
            }
            Vals after;
            if (at != DEAD) memcpy(&after, below + (uint64_t)at * stride, sizeof after);
            if (at == DEAD || after.seqd == 0) {
                if (first_dead < 0) first_dead = j;
                continue;
            }
            u128 before = seq;
            seq += after.seq;
            if (seq < before) c->overflow = 1;
            seqd += after.seqd;
            safe += after.safe_sum;
            limbs_add(acc, below + (uint64_t)at * stride + 4, w_below);
            alive++;
        }
        if (d == 0 && i == 0) {
            c->first = layer->k[i];
            c->safe_first = alive;
        }
        memset(rec + 4, 0, sizeof(uint64_t) * w_here);
        if (!alive) {
            Vals none = {0, 0, 0};
            memcpy(rec, &none, sizeof none);
            continue;
        }
        c->nids++;
        Vals vals = {seq, seqd, safe + alive * seqd};
        memcpy(rec, &vals, sizeof vals);
        int k = layer->k[i];
        times_factor(rec + 4, w_here, acc, (uint32_t)sw, c->fpool + c->foff[k], c->flen[k], c->prod);
        if ((first_dead >= 0 || km < k) && !c->trap_found && d + 1 > trap_depth) {
            c->trap_found = 1;
            c->trap_before = layer->occ[i];
            c->trap_index = first_dead;
        }
    }
}

static void climb_layer_job(void *c) { climb_layer((Climb *)c); }

/* M_d of a layer: the lcm of the k of its positions (k = 0 aside), into *m (fresh, m_len limbs, returned; 0 when
 * there is no memory); ks and *kinds: those k, ascending. */
static uint32_t layer_m(const Layer *layer, uint64_t *kbits, uint32_t *ks, uint32_t *kinds, uint64_t **m) {
    memset(kbits, 0, sizeof(uint64_t) * ((MAXK >> 6) + 1));
    for (uint64_t i = 0; i < layer->n; i++) kbits[layer->k[i] >> 6] |= (uint64_t)1 << (layer->k[i] & 63);
    uint32_t kinds_of_k = 0;
    for (int q = 0; q <= (MAXK >> 6); q++)
        for (uint64_t x = kbits[q]; x; x &= x - 1)
            if (q | low_index(x)) ks[kinds_of_k++] = (uint32_t)(q << 6 | low_index(x));
    *kinds = kinds_of_k;
    *m = calloc(kinds_of_k + 2, sizeof(uint64_t));
    if (!*m) return 0;
    (*m)[0] = 1;
    uint32_t m_len = 1;
    for (uint32_t q = 0; q < kinds_of_k; q++) {
        uint32_t k = ks[q];
        uint64_t r = limbs_mod(*m, m_len, (uint64_t)k), a = (uint64_t)k;
        while (r) { /* a = gcd(M mod k, k) */
            uint64_t t = a % r;
            a = r;
            r = t;
        }
        m_len = limbs_mul_small(*m, m_len, (uint64_t)k / a);
    }
    return m_len;
}

/* *den (den_len limbs, room for den_room) *= m: 0, or -1 when there is no memory. */
static int den_times(uint64_t **den, uint32_t *den_len, uint32_t *den_room, const uint64_t *m, uint32_t m_len) {
    if (*den_len + m_len + 1 > *den_room) {
        uint32_t room = 2 * (*den_len + m_len + 1);
        uint64_t *bigger = realloc(*den, sizeof(uint64_t) * room);
        if (!bigger) return -1;
        *den = bigger;
        *den_room = room;
    }
    uint64_t *product = malloc(sizeof(uint64_t) * (*den_len + m_len));
    if (!product) return -1;
    limbs_mul(*den, *den_len, m, m_len, product);
    *den_len += m_len;
    while (*den_len > 1 && !product[*den_len - 1]) (*den_len)--;
    memcpy(*den, product, sizeof(uint64_t) * *den_len);
    free(product);
    return 0;
}

/* From the deepest layer up, every position's figures from those of the positions after its moves: alive (one
 * of them alive, or the board cleared), its clearing sequences, their safe moves, and random play's chance
 * exactly.  Every solution has the same number of moves L, so with M_d the lcm of the k (legal moves) of the
 * positions at depth d (a position not expanded, k = 0, aside), Q(s) = (M_d / k(s)) * sum Q(after) is an integer
 * and win(s) = Q(s) / D_d, where D_d = M_d * ... * M_{L-1}: Q(s) <= D_d, so a layer's Q take a fixed number of
 * limbs each.  M_d is known before the layer is climbed (the k of every position, not only of those found
 * alive: the same fraction, and each position's figures and Q made in one pass).  Two layers are kept at a time,
 * each position's figures and Q in one record; a large layer is shared by two threads.  0 when done
 * (w->start_alive says whether the board can be cleared), STOP when stopped. */
static int climb(Walk *w) {
    uint64_t *below = NULL, *here = NULL, *m = NULL, *den = NULL, *fpool = NULL;
    /* The layers' records in two buffers kept from layer to layer, the layer below's and this one's, each as
     * large as the most a layer puts in it (below). */
    void *records[2] = {NULL, NULL};
    size_t records_room[2] = {0, 0};
    int here_is = 0;
    Climb *parts = calloc(2, sizeof(Climb));
    uint32_t *foff = malloc(sizeof(uint32_t) * (MAXK + 1)), *ks = malloc(sizeof(uint32_t) * (MAXK + 1));
    uint8_t *flen = malloc(MAXK + 1);
    uint64_t *kbits = malloc(sizeof(uint64_t) * ((MAXK >> 6) + 1));
    uint32_t w_below = 1, den_len = 1, den_room = 64;
    int status = STOP;
    den = calloc(den_room, sizeof(uint64_t));
    if (!parts || !foff || !ks || !flen || !kbits || !den) goto no_memory;
    den[0] = 1;
    {
        /* Every layer's width is known before the climb (M_d from the k of its positions), so each records'
         * buffer is allocated once, at the most a layer will put in it (grown layer after layer, every larger
         * one was fresh memory whose every page the kernel zeroed again). */
        uint32_t len = 1, room = 64, kinds;
        uint64_t *d_den = calloc(room, sizeof(uint64_t)), *d_m = NULL;
        if (!d_den) goto no_memory;
        d_den[0] = 1;
        for (int d = w->nlayers - 1; d >= 0; d--) {
            uint32_t m_len = layer_m(&w->layers[d], kbits, ks, &kinds, &d_m);
            if (!m_len || den_times(&d_den, &len, &room, d_m, m_len)) {
                free(d_m);
                free(d_den);
                goto no_memory;
            }
            free(d_m);
            d_m = NULL;
            size_t need = sizeof(uint64_t) * (w->layers[d].n ? w->layers[d].n * (4 + len) : 1);
            int p = (w->nlayers - 1 - d) & 1;
            if (need > records_room[p]) records_room[p] = need;
        }
        free(d_den);
        for (int p = 0; p < 2; p++) {
            size_t kept = 0;
            records[p] = w->keep ? kept_take(&kept_records[p], &kept) : NULL;
            if (records[p] && kept >= records_room[p]) {
                records_room[p] = kept;
                continue;
            }
            free(records[p]);
            records[p] = malloc(records_room[p] ? records_room[p] : 1);
            if (!records[p]) goto no_memory;
        }
    }
    for (int d = w->nlayers - 1; d >= 0; d--) {
        Layer *layer = &w->layers[d];
        uint64_t n = layer->n;
        /* a position's record in the layer below: its Vals (4 limbs), then its Q (w_below limbs) */
        uint64_t stride = 4 + w_below, sw = w_below + 1;
        if (now() > w->deadline) goto stopped;
        /* M_d, and M_d / k for each k here */
        uint32_t kinds_of_k;
        free(m);
        uint32_t m_len = layer_m(layer, kbits, ks, &kinds_of_k, &m);
        free(fpool);
        fpool = malloc(sizeof(uint64_t) * (size_t)(kinds_of_k + 2) * (kinds_of_k + 2));
        if (!m_len || !fpool) goto no_memory;
        uint32_t pool = 0, fmax = 1;
        for (uint32_t q = 0; q < kinds_of_k; q++) {
            uint32_t k = ks[q];
            foff[k] = pool;
            flen[k] = (uint8_t)limbs_div_small(m, m_len, (uint64_t)k, fpool + pool);
            if (flen[k] > fmax) fmax = flen[k];
            pool += m_len;
        }
        /* D_d = M_d * D_{d+1}: the width of this layer's Q */
        if (den_times(&den, &den_len, &den_room, m, m_len)) goto no_memory;
        uint32_t w_here = den_len;
        here = room_for(&records[here_is], &records_room[here_is], sizeof(uint64_t) * (n ? n * (4 + w_here) : 1));
        if (!here) goto no_memory;
        int two = w->helper_on && n >= 2 * ROUND;
        /* the two threads' shares: as much work each, a position's being its moves and a few more steps */
        uint64_t half = n, e_half = 0;
        if (two) {
            uint64_t total = layer->nedges + 4 * n, work = 0;
            for (half = 0; half < n && 2 * (work + layer->kf[half] + 4) <= total; half++) {
                work += layer->kf[half] + 4;
                e_half += layer->kf[half];
            }
        }
        for (int t = 0; t < 2; t++) {
            Climb *c = &parts[t];
            free(c->prod);
            free(c->acc);
            *c = (Climb){.w = w, .layer = layer, .d = d, .fwd = w->fwd + layer->edge_base, .below = below,
                         .stride = stride, .sw = sw, .from = t ? half : 0, .to = t ? n : half, .e = t ? e_half : 0,
                         .w_below = w_below, .here = here, .stride_here = 4 + w_here, .w_here = w_here,
                         .fpool = fpool, .foff = foff, .flen = flen};
            c->prod = malloc(sizeof(uint64_t) * (sw + fmax));
            c->acc = malloc(sizeof(uint64_t) * sw);
            if (!c->prod || !c->acc) goto no_memory;
        }
        if (two)
            both(&w->helper, climb_layer_job, &parts[0], &parts[1]);
        else
            climb_layer(&parts[0]);
        for (int t = 0; t < 2; t++) {
            Climb *c = &parts[t];
            if (c->stopped) goto stopped;
            w->nids += c->nids;
            w->overflow |= c->overflow;
            if (c->trap_found && d + 1 > w->trap_depth) {
                w->trap_depth = d + 1;
                w->trap_before = c->trap_before;
                w->trap_index = c->trap_index;
            }
        }
        if (d == 0) {
            w->first = parts[0].first;
            w->safe_first = parts[0].safe_first;
        }
        below = here;
        here = NULL;
        here_is = 1 - here_is;
        w_below = w_here;
        /* this layer's moves are the last in fwd: done with (fwd is not shrunk: it is kept for the next walk) */
        w->nfwd = layer->edge_base;
        free(layer->k);
        free(layer->kf);
        layer->k = layer->kf = NULL;
    }
    memcpy(&w->start_vals, below, sizeof(Vals));
    w->start_alive = w->start_vals.seqd != 0;
    if (w->start_alive) {
        w->num = malloc(sizeof(uint64_t) * w_below);
        if (!w->num) goto no_memory;
        memcpy(w->num, below + 4, sizeof(uint64_t) * w_below);
        w->num_len = w_below;
        w->den = den;
        w->den_len = den_len;
        den = NULL;
    }
    status = 0;
    goto done;
no_memory:
    w->no_memory = 1;
stopped:
    stop_with(w, STOP);
done:
    if (parts) {
        for (int t = 0; t < 2; t++) {
            free(parts[t].prod);
            free(parts[t].acc);
        }
    }
    free(parts);
    for (int p = 0; p < 2; p++) {
        if (w->keep)
            kept_put(&kept_records[p], records[p], records_room[p]);
        else
            free(records[p]);
    }
    free(m);
    free(den);
    free(fpool);
    free(foff);
    free(ks);
    free(flen);
    free(kbits);
    return status;
}

/* Both phases: 0 when done, STOP when stopped. */
static int walk(Walk *w, mask full, mask fr) {
    int out = STOP;
    w->bufs = &w->gen[1];
    if (w->keep) {
        size_t kept;
        w->fwd = kept_take(&kept_fwd, &kept);
        w->fwd_cap = kept / sizeof(int32_t);
    }
    if (pthread_mutex_init(&w->pipe.mu, NULL) || pthread_cond_init(&w->pipe.changed, NULL)) return stop_with(w, STOP);
    for (int t = 0; t < 1 + NBUF; t++) {
        w->gen[t].s = w->s;
        w->gen[t].moves = malloc(sizeof(mask) * (MAXK + 1));
        w->gen[t].types = malloc(MAXK + 1);
        w->gen[t].nexts = malloc(sizeof(Next) * (TBATCH + MAXK + 1));
        w->gen[t].seen = calloc(SEEN_SLOTS, sizeof(Seen));
        if (!w->gen[t].moves || !w->gen[t].types || !w->gen[t].nexts || !w->gen[t].seen) goto no_memory;
    }
    if (layer_room(&w->layers[0], 1)) goto no_memory;
    w->layers[0].occ[0] = full;
    w->layers[0].fr[0] = fr;
    {
        mask core = full & (~fr | waited_on(w->s, full & ~fr) | w->s->metals);
        w->layers[0].waited[0] = waited_on(w->s, full & ~fr) & fr;
        w->layers[0].counts[0] = counts_of(w->s, full & ~core);
    }
    w->layers[0].n = 1;
    w->used = 1;
    w->nlayers = 1;
    for (int d = 0; w->layers[d].n; d++) {
        if (d + 1 >= MAXDEPTH) {
            stop_with(w, STOP);
            goto done;
        }
        if (expand(w, d)) goto done;
        w->nlayers = d + 2;
    }
    w->nlayers--; /* the last layer found is empty */
    free(w->table);
    w->table = NULL;
    w->forward_done = now();
    out = climb(w);
    if (out == 0 && w->trap_depth >= 0) {
        /* the losing move, the first of the trap position's list whose position after is dead: one the tile counts
         * show dead (not followed), or the trap_index-th followed */
        mask *moves = w->gen[0].moves;
        uint8_t *types = w->gen[0].types;
        long all, km = moves_of(w->s, w->trap_before, free_set(w->s, w->trap_before), moves, types, MAXK + 1, 0, &all);
        uint32_t dead = dead_types(w->s, w->trap_before);
        w->trap_move = 0;
        for (long j = 0, followed = 0; j < km; j++) {
            if (dead >> types[j] & 1 || followed++ == w->trap_index) {
                w->trap_move = moves[j];
                break;
            }
        }
    }
    goto done;
no_memory:
    w->no_memory = 1;
    stop_with(w, STOP);
done:
    if (w->helper_on) helper_end(&w->helper);
    w->helper_on = 0;
    pthread_cond_destroy(&w->pipe.changed);
    pthread_mutex_destroy(&w->pipe.mu);
    for (int t = 0; t < 1 + NBUF; t++) {
        free(w->gen[t].moves);
        free(w->gen[t].types);
        free(w->gen[t].nexts);
        free(w->gen[t].seen);
        w->gen[t].moves = NULL;
        w->gen[t].types = NULL;
        w->gen[t].nexts = NULL;
        w->gen[t].seen = NULL;
    }
    return out;
}

static void free_walk(Walk *w) {
    free(w->table);
    for (int d = 0; d < MAXDEPTH; d++) {
        free(w->layers[d].occ);
        free(w->layers[d].fr);
        free(w->layers[d].waited);
        free(w->layers[d].counts);
        free(w->layers[d].k);
        free(w->layers[d].kf);
    }
    if (w->keep)
        kept_put(&kept_fwd, w->fwd, sizeof(int32_t) * w->fwd_cap);
    else
        free(w->fwd);
    w->fwd = NULL;
    free(w->num);
    free(w->den);
}

static PyObject *u128_to_long(u128 v) {
    PyObject *high = PyLong_FromUnsignedLongLong((unsigned long long)(v >> 64));
    PyObject *low = PyLong_FromUnsignedLongLong((unsigned long long)v);
    PyObject *sixty_four = PyLong_FromLong(64);
    PyObject *out = NULL, *shifted = NULL;
    if (high && low && sixty_four && (shifted = PyNumber_Lshift(high, sixty_four)))
        out = PyNumber_Or(shifted, low);
    Py_XDECREF(high);
    Py_XDECREF(low);
    Py_XDECREF(sixty_four);
    Py_XDECREF(shifted);
    return out;
}

static PyObject *long_of(const uint64_t *limb, uint32_t len) {
    PyObject *out = PyLong_FromLong(0), *sixty_four = PyLong_FromLong(64);
    for (uint32_t i = len; i-- > 0 && out && sixty_four;) {
        PyObject *part = PyLong_FromUnsignedLongLong(limb[i]);
        PyObject *shifted = part ? PyNumber_Lshift(out, sixty_four) : NULL;
        Py_SETREF(out, shifted ? PyNumber_Or(shifted, part) : NULL);
        Py_XDECREF(part);
        Py_XDECREF(shifted);
    }
    Py_XDECREF(sixty_four);
    return out;
}

/* walk(spec, seconds, max_states[, threads[, prune[, keep]]]) -> (complete, stopped_by, numerator, denominator, sequences,
 *   seq_float, safe_sum, first_moves, safe_first, trap, states, alive, followed, cut, walk_seconds,
 *   exact_seconds): the last two the wall time of phase 1 and of phase 2 */
static PyObject *py_walk(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *spec_obj;
    double seconds;
    unsigned long long max_states;
    int threads = 0, prune = 1, keep = 0;
    if (!PyArg_ParseTuple(args, "OdK|ipp", &spec_obj, &seconds, &max_states, &threads, &prune, &keep)) return NULL;
    if (!keep) kept_release();
    Spec s;
    if (read_spec(spec_obj, &s)) return NULL;
    Walk w;
    memset(&w, 0, sizeof w);
    w.s = &s;
    if (threads <= 0) { /* as many as the machine has cores, two at most */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 1 ? 2 : 1;
    }
    w.threads = threads;
    w.prune = prune;
    w.keep = keep;
    w.deadline = now() + seconds;
    w.max_states = max_states;
    w.trap_depth = -1;
    mask full = s.full;
    mask fr = free_set(&s, full);
    int walked_whole = 1;
    double began = now();
    w.forward_done = began;
    Py_BEGIN_ALLOW_THREADS;
    if (full && !counts_dead(&s, full)) walked_whole = walk(&w, full, fr) == 0;
    Py_END_ALLOW_THREADS;
    double ended = now();
    const char *why = w.no_memory ? "memory" : w.too_many_moves ? "moves" : w.stopped ? "limit" : "";
    PyObject *numerator = NULL, *denominator = NULL, *sequences = NULL, *trap = NULL;
    int read = walked_whole && w.start_alive;
    if (!walked_whole) {
        numerator = Py_NewRef(Py_None);
        denominator = Py_NewRef(Py_None);
        sequences = Py_NewRef(Py_None);
        trap = Py_NewRef(Py_None);
    } else {
        if (read) {
            numerator = long_of(w.num, w.num_len);
            denominator = long_of(w.den, w.den_len);
            sequences = w.overflow ? Py_NewRef(Py_None) : u128_to_long(w.start_vals.seq);
        } else {
            numerator = PyLong_FromLong(!full ? 1 : 0);
            denominator = PyLong_FromLong(1);
            sequences = PyLong_FromLong(!full ? 1 : 0);
        }
        if (w.trap_depth >= 0)
            trap = Py_BuildValue("(KK)", (unsigned long long)w.trap_before, (unsigned long long)w.trap_move);
        else
            trap = Py_NewRef(Py_None);
    }
    PyObject *out = NULL;
    if (numerator && denominator && sequences && trap)
        out = Py_BuildValue("(NsNNNddllNKKKKdd)", PyBool_FromLong(walked_whole), why, numerator, denominator,
                            sequences, read ? w.start_vals.seqd : 0.0, read ? w.start_vals.safe_sum : 0.0,
                            (long)(read ? w.first : 0), (long)(read ? w.safe_first : 0), trap,
                            (unsigned long long)w.used, (unsigned long long)w.nids, (unsigned long long)w.followed,
                            (unsigned long long)w.cut, w.forward_done - began, ended - w.forward_done);
    else {
        Py_XDECREF(numerator);
        Py_XDECREF(denominator);
        Py_XDECREF(sequences);
        Py_XDECREF(trap);
    }
    free_walk(&w);
    return out;
}

/* -- random plays ---------------------------------------------------------------------------------- */

static inline uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The tile of x's i-th set bit (from 0), as a mask. */
INLINE mask nth_bit(mask x, uint64_t i) {
    for (; i; i--) x &= x - 1;
    return x & -x;
}

/* The pair numbered r (from 0) of the set bits of x, in the order a < b, (a, b) of moves_of. */
INLINE mask nth_pair(mask x, uint64_t n, uint64_t r) {
    for (uint64_t rest = n - 1;; rest--) {
        mask a = x & -x;
        x &= x - 1;
        if (r < rest) return a | nth_bit(x, r);
        r -= rest;
    }
}

/* One of occ's legal moves, each of moves_of's list equally likely, from the number of each kind of move (the
 * bit counts of the free tiles) rather than the list itself; 0 when there is none. */
INLINE mask random_move(const Spec *s, mask occ, mask fr, uint64_t *state) {
    mask salt = fr & s->salt, vitae = fr & s->vitae, mors = fr & s->mors, el[4];
    uint64_t ns = pc(salt), ne[4], quint = pc(fr & s->qx), cur = current_metal(s, occ), metal = 0;
    for (int e = 0; e < 4; e++) {
        el[e] = fr & s->el[e];
        ne[e] = pc(el[e]);
        quint *= ne[e];
    }
    if (cur & fr) metal = cur == s->gold_bit ? 1 : pc(fr & s->qs);
    uint64_t total = ns * (ns - (ns > 0)) / 2 + pc(vitae) * pc(mors) + metal + quint;
    for (int e = 0; e < 4; e++) total += ne[e] * (ne[e] - (ne[e] > 0)) / 2 + ns * ne[e];
    if (!total) return 0;
    uint64_t r = (uint64_t)(((u128)next_random(state) * total) >> 64);
    for (int e = 0; e < 4; e++) {
        uint64_t pairs = ne[e] * (ne[e] - (ne[e] > 0)) / 2;
        if (r < pairs) return nth_pair(el[e], ne[e], r);
        r -= pairs;
        if (r < ns * ne[e]) return nth_bit(salt, r / ne[e]) | nth_bit(el[e], r % ne[e]);
        r -= ns * ne[e];
    }
    uint64_t salts = ns * (ns - (ns > 0)) / 2;
    if (r < salts) return nth_pair(salt, ns, r);
    r -= salts;
    uint64_t nm = pc(mors);
    if (r < pc(vitae) * nm) return nth_bit(vitae, r / nm) | nth_bit(mors, r % nm);
    r -= pc(vitae) * nm;
    if (r < metal) return cur == s->gold_bit ? cur : cur | nth_bit(fr & s->qs, r);
    r -= metal;
    /* quintessence: a free quintessence and one free tile of each element, the last group varying fastest */
    mask m = 0;
    for (int e = 3; e >= 0; e--) {
        m |= nth_bit(el[e], r % ne[e]);
        r /= ne[e];
    }
    return m | nth_bit(fr & s->qx, r);
}

/* games(s, runs, state) -> wins, or -1: runs games of uniformly random legal moves. */
HOT static long long games(const Spec *s, long long runs, uint64_t *state) {
    long long wins = 0;
    mask start_free = free_set(s, s->full);
    for (long long r = 0; r < runs; r++) {
        mask occ = s->full, fr = start_free;
        while (occ) {
            if (counts_dead(s, occ)) break; /* this game is lost whatever it plays next */
            mask m = random_move(s, occ, fr, state);
            if (!m) break;
            fr = child_free(s, occ, fr, m);
            occ &= ~m;
        }
        wins += !occ;
    }
    return wins;
}

/* playouts(spec, runs, seed) -> wins: games of uniformly random legal moves that clear the board. */
static PyObject *py_playouts(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *spec_obj;
    long long runs;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OLK", &spec_obj, &runs, &seed)) return NULL;
    Spec s;
    if (read_spec(spec_obj, &s)) return NULL;
    uint64_t state = seed;
    long long wins;
    Py_BEGIN_ALLOW_THREADS;
    wins = games(&s, runs, &state);
    Py_END_ALLOW_THREADS;
    return PyLong_FromLongLong(wins);
}

static PyMethodDef methods[] = {
    {"walk", py_walk, METH_VARARGS, "The play graph's walk: see encoders/search/_playgraph.c."},
    {"playouts", py_playouts, METH_VARARGS, "Random legal games: how many clear the board."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_playgraph", "The play graph's compiled core.", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__playgraph(void) { return PyModule_Create(&module); }
