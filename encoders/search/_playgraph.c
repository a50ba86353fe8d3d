/* The compiled core of the play graph (encoders/search/playgraph.py): the same walk, a hundred times faster.
 *
 * A side-6 board's play graph has from ten thousand to tens of millions of positions; in Python
 * a million take minutes, here about a second.  The walk, the keys and the figures are those of
 * playgraph.py's docstring, which this file follows step for step (the tests hold the two to the
 * same brute force):
 *
 *   walk(spec, seconds, max_states) -> tuple   (see walk() at the end for its fields)
 *   playouts(spec, runs, seed) -> wins          uniformly random legal games
 *
 * spec = (n, elements[4], salt, vitae, mors, quicksilver, quintessence, metal_chain, windows,
 *         neighbours, kinds): the board's masks (bit i is tile i; n <= 64; at most 9 kinds, the loose tiles
 *         of each counted in a key in as many bits as the kind's tiles need), as playgraph.spec builds them.
 *
 * Phase 1 is a depth-first walk over positions keyed as playgraph.key does; each position that
 * can be cleared (alive) gets an id in the order its walk ends (children first), with its number of
 * legal moves k, its depth and its alive successors.  Phase 2 computes random play's chance exactly
 * with Python integers: every solution has the same number of moves L, so with M_d the lcm of the k
 * of the alive positions at depth d, Q(s) = (M_d / k(s)) * sum Q(after) is an integer and
 * win(s) = Q(s) / (M_d * ... * M_{L-1}).  A Q is released once its last predecessor has read it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

typedef uint64_t mask;
typedef unsigned __int128 u128;

#define MAXT 64
#define DEAD (-1)
#define STOP (-2)
#define CLEAR INT32_MAX
#define EMPTY INT32_MIN
#define MAXK 65535
#define MAXDEPTH 64
/* A slot of the table is 128 bits: the key (the core's tiles, then the count of loose tiles of each kind) in the
 * low KEY_BITS, the position's id (or DEAD) above; an all-zero slot is empty (no position's key is 0). */
#define KEY_BITS 98
#define DEAD_FIELD 0x3FFFFFFF
#define MAX_IDS 0x3FFFFFFE

typedef struct {
    int n;
    mask el[4], salt, vitae, mors, qs, qx, metals, gold_bit, nongold;
    int nmet;
    int met[MAXT];
    int nw[MAXT];
    mask win[MAXT][6];
    mask nbr[MAXT], waits_on[MAXT];
    int nkinds;
    mask kinds[16];
    int count_shift[16]; /* where a key holds the count of loose tiles of each kind (after the n tile bits) */
    mask full;
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
        if (read_mask(PyTuple_GET_ITEM(nbr, i), &s->nbr[i])) return -1;
    }
    s->nkinds = (int)PyTuple_GET_SIZE(kinds);
    int bits = s->n;
    for (int k = 0; k < s->nkinds; k++) {
        if (read_mask(PyTuple_GET_ITEM(kinds, k), &s->kinds[k])) return -1;
        s->count_shift[k] = bits;
        bits += 64 - __builtin_clzll((uint64_t)pc(s->kinds[k]) | 1); /* as many bits as the kind's count needs */
    }
    if (bits > KEY_BITS) { /* never on a board (64 tiles in 9 kinds need at most 98): a wrong spec */
        PyErr_SetString(PyExc_ValueError, "spec: the tiles and the kinds' counts take more than 98 bits");
        return -1;
    }
    s->full = s->n == 64 ? ~(mask)0 : (((mask)1 << s->n) - 1);
    return 0;
}

/* -- the rules on masks (as encoders/search/state.py, moves.py and certificates.legal_moves) -------- */

INLINE int is_free(const Spec *s, int i, mask occ) {
    for (int k = 0; k < s->nw[i]; k++)
        if (!(occ & s->win[i][k])) return 1;
    return 0;
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

/* Every legal move of occ as a removal mask, in certificates.legal_moves' order; -1 past `room`. */
INLINE long moves_of(const Spec *s, mask occ, mask fr, mask *out, long room) {
    long c = 0;
    int salts[MAXT], ns = 0;
#define PUT(m)                     \
    do {                           \
        if (c >= room) return -1; \
        out[c++] = (m);            \
    } while (0)
    for (mask x = fr & s->salt; x; x &= x - 1) salts[ns++] = low_index(x);
    for (int e = 0; e < 4; e++) {
        int t[MAXT], nt = 0;
        for (mask x = fr & s->el[e]; x; x &= x - 1) t[nt++] = low_index(x);
        for (int a = 0; a < nt; a++)
            for (int b = a + 1; b < nt; b++) PUT((mask)1 << t[a] | (mask)1 << t[b]);
        for (int k = 0; k < ns; k++)
            for (int a = 0; a < nt; a++) PUT((mask)1 << salts[k] | (mask)1 << t[a]);
    }
    for (int a = 0; a < ns; a++)
        for (int b = a + 1; b < ns; b++) PUT((mask)1 << salts[a] | (mask)1 << salts[b]);
    {
        int v[MAXT], nv = 0, m[MAXT], nm = 0;
        for (mask x = fr & s->vitae; x; x &= x - 1) v[nv++] = low_index(x);
        for (mask x = fr & s->mors; x; x &= x - 1) m[nm++] = low_index(x);
        for (int a = 0; a < nv; a++)
            for (int b = 0; b < nm; b++) PUT((mask)1 << v[a] | (mask)1 << m[b]);
    }
    mask cur = current_metal(s, occ);
    if (cur && (fr & cur)) {
        if (cur == s->gold_bit)
            PUT(cur);
        else
            for (mask x = fr & s->qs; x; x &= x - 1) PUT(cur | (x & -x));
    }
    if (fr & s->qx) {
        /* quintessence with one free tile of each element, in the order of product() over the masks */
        mask groups[5] = {fr & s->qx, fr & s->el[0], fr & s->el[1], fr & s->el[2], fr & s->el[3]};
        int ids[5][MAXT], sizes[5];
        for (int g = 0; g < 5; g++) {
            sizes[g] = 0;
            for (mask x = groups[g]; x; x &= x - 1) ids[g][sizes[g]++] = low_index(x);
            if (!sizes[g]) return c;
        }
        int pick[5] = {0, 0, 0, 0, 0};
        for (;;) {
            mask m = 0;
            for (int g = 0; g < 5; g++) m |= (mask)1 << ids[g][pick[g]];
            PUT(m);
            int g = 4;
            while (g >= 0 && ++pick[g] == sizes[g]) pick[g--] = 0;
            if (g < 0) break;
        }
    }
#undef PUT
    return c;
}

/* -- the walk ------------------------------------------------------------------------------------ */

/* What an alive position's predecessors read of it, in one place: they read it at random, one cache miss
 * each (three arrays made it four). */
typedef struct {
    uint64_t seq_low, seq_high; /* its clearing sequences, exactly (an overflow is flagged) */
    double seqd, safe_sum;     /* the same as a float, and the safe moves summed along them */
    uint32_t indeg;            /* its predecessors still to read its Q in phase 2 */
} Node;

static inline u128 seq_of(const Node *node) { return (u128)node->seq_high << 64 | node->seq_low; }

typedef u128 Slot;
static const u128 KEY_MASK = ((u128)1 << KEY_BITS) - 1;

static inline int32_t slot_id(Slot slot) {
    if (!slot) return EMPTY;
    uint32_t field = (uint32_t)(slot >> KEY_BITS);
    return field == DEAD_FIELD ? DEAD : (int32_t)field;
}

/* A position after one move of the position being expanded: its tiles, free set, key and hash. */
typedef struct {
    mask occ, fr;
    u128 key;
    uint64_t hash;
    int32_t known;  /* CLEAR, DEAD (the counts), or EMPTY: to be looked up */
} Next;

typedef struct {
    const Spec *s;
    Slot *table;
    uint64_t cap, used;
    /* per alive id */
    uint16_t *k, *nalive;
    uint8_t *depth;
    Node *node;
    uint64_t nids, ids_cap;
    int32_t *edges;
    uint64_t nedges, edges_cap;
    /* stacks of moves, of the positions after them and of alive successors, shared by the frames */
    mask *moves;
    Next *nexts;
    long msp, mcap;
    int32_t *succ;
    long ssp, scap;
    /* limits and counters */
    double deadline;
    uint64_t max_states, expanded, followed, cut;
    int stopped, overflow, too_many_moves, no_memory;
    /* per depth, the k seen at alive positions: one bit each */
    uint64_t *kseen[MAXDEPTH];
    int trap_depth;
    mask trap_before, trap_move;
} Walk;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline uint64_t hash_key(u128 key) {
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

/* The key of occ (playgraph.key) from its blocked tiles and what they wait on. */
INLINE u128 key_with(const Spec *s, mask occ, mask blocked, mask waited) {
    mask core = occ & (blocked | waited | s->metals);
    mask loose = occ & ~core;
    u128 key = core;
    if (loose)
        for (int k = 0; k < s->nkinds; k++) key |= (u128)pc(loose & s->kinds[k]) << s->count_shift[k];
    return key;
}

static u128 key_of(const Spec *s, mask occ, mask fr) {
    mask blocked = occ & ~fr;
    return key_with(s, occ, blocked, waited_on(s, blocked));
}

static inline Slot *find_hashed(Walk *w, u128 key, uint64_t hash) {
    uint64_t i = hash & (w->cap - 1);
    for (;;) {
        Slot *slot = &w->table[i];
        if (!*slot || (*slot & KEY_MASK) == key) return slot;
        i = (i + 1) & (w->cap - 1);
    }
}

/* A table of `cap` slots, in huge pages where the kernel gives them: its lookups are random, and with
 * 4 KB pages most of them missed the TLB (the walk's largest cost on a side-6 board). */
static Slot *new_table(uint64_t cap) {
    size_t bytes = sizeof(Slot) * cap, huge = (size_t)2 << 20;
    void *table = NULL;
    if (bytes >= huge) {
        if (posix_memalign(&table, huge, (bytes + huge - 1) / huge * huge)) return NULL;
#ifdef MADV_HUGEPAGE
        madvise(table, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE);
#endif
    } else {
        table = malloc(bytes);
    }
    return table;
}

static int grow_table(Walk *w) {
    uint64_t old_cap = w->cap;
    Slot *old = w->table;
    Slot *table = new_table(old_cap * 2);
    if (!table) return -1;
    w->table = table;
    w->cap = old_cap * 2;
    memset(table, 0, sizeof(Slot) * w->cap);
    for (uint64_t i = 0; i < old_cap; i++)
        if (old[i]) *find_hashed(w, old[i] & KEY_MASK, hash_key(old[i] & KEY_MASK)) = old[i];
    free(old);
    return 0;
}

static int insert(Walk *w, u128 key, uint64_t hash, int32_t id) {
    if ((w->used + 1) * 2 > w->cap && grow_table(w)) return -1; /* at most half full: short probes */
    *find_hashed(w, key, hash) = key | (u128)(id == DEAD ? DEAD_FIELD : (uint32_t)id) << KEY_BITS;
    w->used++;
    return 0;
}

static int grow_ids(Walk *w) {
    if (w->nids < w->ids_cap) return 0;
    uint64_t more = w->ids_cap ? w->ids_cap * 2 : 4096;
#define MORE(field, type)                                    \
    do {                                                     \
        type *bigger = realloc(w->field, sizeof(type) * more); \
        if (!bigger) return -1;                              \
        w->field = bigger;                                   \
    } while (0)
    MORE(k, uint16_t);
    MORE(nalive, uint16_t);
    MORE(depth, uint8_t);
    MORE(node, Node);
#undef MORE
    w->ids_cap = more;
    return 0;
}

static int32_t stop_with(Walk *w, int32_t why) {
    w->stopped = 1;
    return why;
}

/* Expand occ's position, which is not in the table (its key and hash given): its id if alive, DEAD, or
 * STOP when a limit or a memory failure ended the walk. */
HOT static int32_t walk(Walk *w, mask occ, mask fr, u128 key, uint64_t hash, int depth) {
    const Spec *s = w->s;
    if (w->used >= w->max_states || w->nids >= MAX_IDS) return stop_with(w, STOP);
    if (!(++w->expanded & 1023) && now() > w->deadline) return stop_with(w, STOP);
    if (depth >= MAXDEPTH - 1) return stop_with(w, STOP);
    long base = w->msp;
    if (w->mcap - base < 8192) {
        long more = w->mcap * 2 + 8192;
        mask *bigger = realloc(w->moves, sizeof(mask) * more);
        Next *nexts = bigger ? realloc(w->nexts, sizeof(Next) * more) : NULL;
        if (bigger) w->moves = bigger;
        if (!nexts) {
            w->no_memory = 1;
            return stop_with(w, STOP);
        }
        w->nexts = nexts;
        w->mcap = more;
    }
    long km = moves_of(s, occ, fr, w->moves + base, w->mcap - base);
    if (km < 0 || km > MAXK) {
        w->too_many_moves = 1;
        return stop_with(w, STOP);
    }
    w->msp = base + km;
    w->followed += km;
    /* The positions after the moves, keyed and their slots fetched ahead, before any is walked.  A move takes
     * free tiles only, so a child's blocked tiles are occ's less those it frees: when it frees none (most
     * moves), what they wait on is occ's too. */
    mask blocked = occ & ~fr, waited = waited_on(s, blocked);
    for (long i = 0; i < km; i++) {
        Next *next = &w->nexts[base + i];
        next->occ = occ & ~w->moves[base + i];
        if (!next->occ) {
            next->known = CLEAR;
            continue;
        }
        if (counts_dead(s, next->occ)) {
            next->known = DEAD;
            w->cut++;
            continue;
        }
        next->known = EMPTY;
        next->fr = child_free(s, occ, fr, w->moves[base + i]);
        mask freed = next->fr & ~fr;
        next->key = key_with(s, next->occ, blocked & ~freed, freed ? waited_on(s, blocked & ~freed) : waited);
        next->hash = hash_key(next->key);
        __builtin_prefetch(&w->table[next->hash & (w->cap - 1)]);
    }
    long sbase = w->ssp;
    int alive = 0;
    mask first_dead = 0;
    for (long i = 0; i < km; i++) {
        mask m = w->moves[base + i];
        Next *next = &w->nexts[base + i];
        int32_t got = next->known;
        if (got == EMPTY) {
            got = slot_id(*find_hashed(w, next->key, next->hash));
            if (got == EMPTY) {
                got = walk(w, next->occ, next->fr, next->key, next->hash, depth + 1);
                if (got == STOP) return STOP; /* (the stacks may have moved: next is not read again) */
            }
        }
        if (got == DEAD) {
            if (!first_dead) first_dead = m;
            continue;
        }
        if (w->ssp >= w->scap) {
            long more = w->scap * 2 + 4096;
            int32_t *bigger = realloc(w->succ, sizeof(int32_t) * more);
            if (!bigger) {
                w->no_memory = 1;
                return stop_with(w, STOP);
            }
            w->succ = bigger;
            w->scap = more;
        }
        w->succ[w->ssp++] = got;
        alive++;
    }
    w->msp = base;
    if (!alive) {
        w->ssp = sbase;
        if (insert(w, key, hash, DEAD)) {
            w->no_memory = 1;
            return stop_with(w, STOP);
        }
        return DEAD;
    }
    if (grow_ids(w)) {
        w->no_memory = 1;
        return stop_with(w, STOP);
    }
    uint64_t need = w->nedges + alive;
    if (need > w->edges_cap) {
        uint64_t more = w->edges_cap ? w->edges_cap : 1 << 16;
        while (more < need) more *= 2;
        int32_t *bigger = realloc(w->edges, sizeof(int32_t) * more);
        if (!bigger) {
            w->no_memory = 1;
            return stop_with(w, STOP);
        }
        w->edges = bigger;
        w->edges_cap = more;
    }
    int32_t id = (int32_t)w->nids++;
    w->k[id] = (uint16_t)km;
    w->nalive[id] = (uint16_t)alive;
    w->depth[id] = (uint8_t)depth;
    u128 seq = 0;
    double seqd = 0, safe = 0;
    for (long i = sbase; i < w->ssp; i++) {
        int32_t c = w->succ[i];
        w->edges[w->nedges++] = c;
        if (c == CLEAR) {
            seq += 1;
            seqd += 1;
            continue;
        }
        Node *after = &w->node[c];
        after->indeg++;
        u128 before = seq;
        seq += seq_of(after);
        if (seq < before) w->overflow = 1;
        seqd += after->seqd;
        safe += after->safe_sum;
    }
    w->node[id] = (Node){(uint64_t)seq, (uint64_t)(seq >> 64), seqd, safe + alive * seqd, 0};
    w->ssp = sbase;
    w->kseen[depth][km >> 6] |= (uint64_t)1 << (km & 63);
    if (first_dead && depth + 1 > w->trap_depth) {
        w->trap_depth = depth + 1;
        w->trap_before = occ;
        w->trap_move = first_dead;
    }
    if (insert(w, key, hash, id)) {
        w->no_memory = 1;
        return stop_with(w, STOP);
    }
    return id;
}

static void free_walk(Walk *w) {
    free(w->table);
    free(w->k);
    free(w->nalive);
    free(w->depth);
    free(w->node);
    free(w->edges);
    free(w->moves);
    free(w->nexts);
    free(w->succ);
    for (int d = 0; d < MAXDEPTH; d++) free(w->kseen[d]);
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

/* -- phase 2: exact arithmetic on unsigned integers of 64-bit limbs, least significant first ---------- */

typedef struct {
    uint64_t *limb;
    uint32_t len;
    uint32_t indeg; /* a position's Q: its predecessors still to read it (beside it, one cache miss for both) */
} Big;

/* acc += x, where acc holds room for max(len) + 1 limbs (its limbs past *len are read as 0). */
static inline void big_add(uint64_t *acc, uint32_t *len, const uint64_t *x, uint32_t xlen) {
    uint32_t n = *len > xlen ? *len : xlen;
    uint64_t carry = 0;
    for (uint32_t i = 0; i < n; i++) {
        u128 sum = (u128)(i < *len ? acc[i] : 0) + (i < xlen ? x[i] : 0) + carry;
        acc[i] = (uint64_t)sum;
        carry = (uint64_t)(sum >> 64);
    }
    if (carry) acc[n++] = carry;
    *len = n;
}

/* A new Big of a * b (NULL limbs when out of memory). */
static Big big_mul(const uint64_t *a, uint32_t alen, const uint64_t *b, uint32_t blen) {
    Big out = {calloc((size_t)alen + blen + 1, sizeof(uint64_t)), 0, 0};
    if (!out.limb) return out;
    for (uint32_t i = 0; i < alen; i++) {
        uint64_t carry = 0;
        for (uint32_t j = 0; j < blen; j++) {
            u128 t = (u128)a[i] * b[j] + out.limb[i + j] + carry;
            out.limb[i + j] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
        out.limb[i + blen] += carry;
    }
    out.len = alen + blen;
    while (out.len && !out.limb[out.len - 1]) out.len--;
    return out;
}

/* A non-negative Python int as limbs (for the few factors M_d / k). */
static Big big_of(PyObject *value) {
    Big out = {NULL, 0, 0};
    PyObject *length = PyObject_CallMethod(value, "bit_length", NULL);
    if (!length) return out;
    size_t bits = PyLong_AsSize_t(length);
    Py_DECREF(length);
    if (bits == (size_t)-1 && PyErr_Occurred()) return out;
    uint32_t n = (uint32_t)(bits / 64 + 1);
    out.limb = calloc(n, sizeof(uint64_t));
    if (!out.limb) return out;
    PyObject *rest = Py_NewRef(value), *sixty_four = PyLong_FromLong(64), *low = PyLong_FromUnsignedLongLong(~0ull);
    for (uint32_t i = 0; i < n && rest && sixty_four && low; i++) {
        PyObject *part = PyNumber_And(rest, low);
        if (!part) break;
        out.limb[i] = PyLong_AsUnsignedLongLong(part);
        Py_DECREF(part);
        Py_SETREF(rest, PyNumber_Rshift(rest, sixty_four));
    }
    int failed = !rest || !sixty_four || !low || PyErr_Occurred();
    Py_XDECREF(rest);
    Py_XDECREF(sixty_four);
    Py_XDECREF(low);
    if (failed) {
        free(out.limb);
        out.limb = NULL;
        return out;
    }
    out.len = n;
    while (out.len && !out.limb[out.len - 1]) out.len--;
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

/* Phase 2: random play's chance as (Q of the start, its denominator); 1 when the deadline passed first. */
static int exact_win(Walk *w, int32_t start, PyObject **numerator, PyObject **denominator) {
    int top = 0;
    for (uint64_t id = 0; id < w->nids; id++)
        if (w->depth[id] > top) top = w->depth[id];
    PyObject *math = PyImport_ImportModule("math");
    if (!math) return -1;
    PyObject *lcm = PyObject_GetAttrString(math, "lcm");
    Py_DECREF(math);
    if (!lcm) return -1;
    PyObject *per_depth[MAXDEPTH] = {0};
    Big *factors = calloc((size_t)(top + 1) * (MAXK + 1), sizeof(Big));
    Big *q = calloc(w->nids ? w->nids : 1, sizeof(Big));
    PyObject *denom = PyLong_FromLong(1);
    uint64_t *acc = NULL;
    uint32_t room = 0;
    int status = -1;
    if (!factors || !q || !denom) goto done;
    /* Phase 1's table and what predecessors read of a position are done with: their memory goes to the Q. */
    for (uint64_t id = 0; id < w->nids; id++) q[id].indeg = w->node[id].indeg;
    free(w->node);
    free(w->table);
    w->node = NULL;
    w->table = NULL;
    for (int d = 0; d <= top; d++) {
        PyObject *ks = PyList_New(0);
        if (!ks) goto done;
        for (int k = 1; k <= MAXK; k++)
            if (w->kseen[d][k >> 6] >> (k & 63) & 1) {
                PyObject *v = PyLong_FromLong(k);
                if (!v || PyList_Append(ks, v)) {
                    Py_XDECREF(v);
                    Py_DECREF(ks);
                    goto done;
                }
                Py_DECREF(v);
            }
        PyObject *args = PyList_AsTuple(ks);
        Py_DECREF(ks);
        if (!args) goto done;
        per_depth[d] = PyObject_CallObject(lcm, args);
        Py_DECREF(args);
        if (!per_depth[d]) goto done;
        PyObject *bigger = PyNumber_Multiply(denom, per_depth[d]);
        if (!bigger) goto done;
        Py_SETREF(denom, bigger);
    }
    uint64_t one = 1;
    uint64_t edge = 0; /* each id's alive successors follow the previous id's in w->edges */
    for (uint64_t id = 0; id < w->nids; id++) {
        if (!(id & 4095) && now() > w->deadline) {
            status = 1;
            goto done;
        }
        int d = w->depth[id], k = w->k[id];
        Big *factor = &factors[(size_t)d * (MAXK + 1) + k];
        if (!factor->limb) {
            PyObject *kk = PyLong_FromLong(k);
            PyObject *f = kk ? PyNumber_FloorDivide(per_depth[d], kk) : NULL;
            Py_XDECREF(kk);
            if (!f) goto done;
            *factor = big_of(f);
            Py_DECREF(f);
            if (!factor->limb) goto done;
        }
        uint32_t len = 0;
        for (uint64_t end = edge + w->nalive[id]; edge < end; edge++) {
            int32_t c = w->edges[edge];
            const uint64_t *x = c == CLEAR ? &one : q[c].limb;
            uint32_t xlen = c == CLEAR ? 1 : q[c].len;
            uint32_t need = (len > xlen ? len : xlen) + 2;
            if (need > room) {
                uint64_t *bigger = realloc(acc, sizeof(uint64_t) * need * 2);
                if (!bigger) goto done;
                acc = bigger;
                room = need * 2;
            }
            big_add(acc, &len, x, xlen);
            if (c != CLEAR && --q[c].indeg == 0 && c != start) {
                free(q[c].limb);
                q[c].limb = NULL;
            }
        }
        uint32_t indeg = q[id].indeg;
        q[id] = big_mul(acc, len, factor->limb, factor->len);
        q[id].indeg = indeg;
        if (!q[id].limb) goto done;
    }
    *numerator = long_of(q[start].limb, q[start].len);
    if (!*numerator) goto done;
    *denominator = denom;
    Py_INCREF(denom);
    status = 0;
done:
    Py_DECREF(lcm);
    for (int d = 0; d < MAXDEPTH; d++) Py_XDECREF(per_depth[d]);
    if (factors) {
        for (size_t i = 0; i < (size_t)(top + 1) * (MAXK + 1); i++) free(factors[i].limb);
        free(factors);
    }
    if (q) {
        for (uint64_t id = 0; id < w->nids; id++) free(q[id].limb);
        free(q);
    }
    free(acc);
    Py_XDECREF(denom);
    if (status < 0 && !PyErr_Occurred()) PyErr_NoMemory();
    return status;
}

/* walk(spec, seconds, max_states) -> (complete, stopped_by, numerator, denominator, sequences,
 *   seq_float, safe_sum, first_moves, safe_first, trap, states, alive, followed, cut, walk_seconds,
 *   exact_seconds): the last two the wall time of phase 1 and of phase 2 */
static PyObject *py_walk(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *spec_obj;
    double seconds;
    unsigned long long max_states;
    if (!PyArg_ParseTuple(args, "OdK", &spec_obj, &seconds, &max_states)) return NULL;
    Spec s;
    if (read_spec(spec_obj, &s)) return NULL;
    Walk w;
    memset(&w, 0, sizeof w);
    w.s = &s;
    w.cap = 1 << 12;
    w.table = new_table(w.cap);
    for (int d = 0; d < MAXDEPTH; d++) w.kseen[d] = calloc((MAXK >> 6) + 1, sizeof(uint64_t));
    w.deadline = now() + seconds;
    w.max_states = max_states;
    w.trap_depth = -1;
    int ok = w.table != NULL;
    for (int d = 0; d < MAXDEPTH; d++) ok &= w.kseen[d] != NULL;
    if (!ok) {
        free_walk(&w);
        return PyErr_NoMemory();
    }
    memset(w.table, 0, sizeof(Slot) * w.cap);
    mask full = s.full;
    mask fr = free_set(&s, full);
    int32_t start = DEAD;
    double began = now();
    Py_BEGIN_ALLOW_THREADS;
    if (full && !counts_dead(&s, full)) {
        u128 key = key_of(&s, full, fr);
        start = walk(&w, full, fr, key, hash_key(key), 0);
    }
    Py_END_ALLOW_THREADS;
    double walked = now();
    const char *why = w.no_memory ? "memory" : w.too_many_moves ? "moves" : w.stopped ? "limit" : "";
    PyObject *numerator = NULL, *denominator = NULL, *sequences = NULL, *trap = NULL, *out = NULL;
    long first = 0, safe_first = 0;
    Node top = {0}; /* the start's (phase 2 frees the others') */
    if (start >= 0 && !w.stopped) top = w.node[start];
    if (!w.stopped) {
        if (start >= 0) {
            int late = exact_win(&w, start, &numerator, &denominator);
            if (late < 0) goto fail;
            if (late) {
                w.stopped = 1;
                why = "limit";
            }
        }
    }
    if (!w.stopped) {
        if (start >= 0) {
            sequences = w.overflow ? Py_NewRef(Py_None) : u128_to_long(seq_of(&top));
            if (!sequences) goto fail;
            first = w.k[start];
            safe_first = w.nalive[start];
        } else {
            numerator = PyLong_FromLong(!full ? 1 : 0);
            denominator = PyLong_FromLong(1);
            sequences = PyLong_FromLong(!full ? 1 : 0);
            if (!numerator || !denominator || !sequences) goto fail;
        }
        if (w.trap_depth >= 0)
            trap = Py_BuildValue("(KK)", (unsigned long long)w.trap_before, (unsigned long long)w.trap_move);
        else
            trap = Py_NewRef(Py_None);
        if (!trap) goto fail;
    } else {
        numerator = Py_NewRef(Py_None);
        denominator = Py_NewRef(Py_None);
        sequences = Py_NewRef(Py_None);
        trap = Py_NewRef(Py_None);
    }
    int read = start >= 0 && !w.stopped;
    double seqd = read ? top.seqd : 0, safe = read ? top.safe_sum : 0;
    out = Py_BuildValue("(NsNNNddllNKKKKdd)", PyBool_FromLong(!w.stopped), why, numerator, denominator, sequences,
                        seqd, safe, first, safe_first, trap, (unsigned long long)w.used,
                        (unsigned long long)w.nids, (unsigned long long)w.followed, (unsigned long long)w.cut,
                        walked - began, now() - walked);
    free_walk(&w);
    return out;
fail:
    Py_XDECREF(numerator);
    Py_XDECREF(denominator);
    Py_XDECREF(sequences);
    Py_XDECREF(trap);
    free_walk(&w);
    return NULL;
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
