/* A backward DRUP checker that honours deletions: the C core of runners/checking/rup_check.py.
 *
 * Why it exists: checking a Glucose refutation of a side-8 board with
 * python-sat's propagation (which cannot delete a clause, and checks every
 * lemma) took twice as long as finding it.  This checker has its own
 * two-watched-literal propagation, so a deleted clause leaves it, and it
 * checks only the lemmas the refutation uses, as drat-trim does:
 *
 * 1. Forward, with no check: the formula's clauses, then the proof's lines
 *    in order; a lemma is added, a deletion removes one alive copy of that
 *    clause.  Unit propagation with no assumption runs as clauses come, and
 *    the pass stops at its first conflict.  No conflict: the proof is refused.
 * 2. Backward from that conflict: the clauses that produced it are marked.
 *    Walking the proof back, each lemma is taken out again (and each deleted
 *    clause put back), so the clauses alive are those before the lemma; a
 *    marked lemma must then follow by reverse unit propagation (RUP), and the
 *    clauses that make it follow are marked in turn.  An unmarked lemma is
 *    not needed and is not checked.
 *
 * With goals (clauses) and no conflict, pass 2 starts from them instead: each must be alive at the end
 * of the proof (rup_check.py reads the goals as lemmas after the proof, so that each is checked), and
 * is marked, so only the lemmas the goals rest on are checked.  A cube-and-conquer node that splits
 * derives, rather than refutes, the clauses it passes on (docs/formats.md#cubes).
 *
 * A deletion naming no alive clause is ignored, and so is the deletion of a
 * clause that is the reason of a literal fixed with no assumption (drat-trim
 * ignores unit deletions too): ignoring a deletion only keeps an implied
 * clause, which stays sound.
 *
 * LRAT (when asked): for every lemma it checks, the checker also writes the clauses its reverse unit
 * propagation used, in the order they became unit (the reasons of the literals behind the conflict,
 * back to the lemma's own negated literals, the clause of the conflict last), so that a checker with
 * no search at all can re-check it (runners/checking/lrat_check.py).  The formula's clauses are IDs
 * 1..m in the order given; the lemmas checked get m+1, m+2, ... in proof order; the lemmas not
 * checked, and the deletions, are not written.
 *
 * The proof text is parsed here, line by line, with the rules of
 * rup_check.iter_drup: blank lines and lines starting with 'c' are skipped,
 * a line is one clause ("d" first for a deletion) ending in a single 0, and
 * every literal names a variable 1..variables.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SIZE = 0, NEXT = 1, FLAGS = 2, ID = 3, HEADER = 4 };
/* FLAGS: two bits, and above them the number of extra copies of the clause (a lemma written again
 * while an equal clause is alive is counted there, not stored: a proof repeating one lemma
 * millions of times costs no memory; a deletion takes a copy off before the clause itself). */
enum { DELETED = 1, CORE = 2, COPY = 4 };
#define MAX_COPIES (INT32_MAX / COPY)
enum { VALID_CONFLICT = 1, LEMMA_FAILS = 2, NO_CONFLICT = 3, FORMAT_ERROR = 4, TOO_LARGE = 5, DERIVED = 6, NOT_DERIVED = 7 };

typedef struct {
    int32_t *data;
    int64_t n, cap;
} Vec;

typedef struct {
    int64_t variables;
    int8_t *val;        /* per literal index: 1 true, -1 false, 0 free */
    uint32_t *stamp;    /* per literal index, to find duplicates and tautologies */
    uint32_t now;
    Vec *watches;       /* per literal index: clauses watching it (their first two literals) */
    int32_t *reason;    /* per variable: the clause that implied it, 0 for an assumption */
    int32_t *pos;       /* per variable: its place on the trail */
    uint8_t *marked;    /* per variable: its reasons are marked (fixed literals) or seen (one analysis) */
    int32_t *trail;
    int64_t trail_n, qhead, top; /* trail[0:top] is fixed with no assumption */
    Vec arena;          /* clauses: SIZE, NEXT (hash chain), FLAGS, literal indices */
    int32_t *buckets;   /* hash -> first alive clause (0: none) */
    uint64_t mask;
    int64_t alive;
    int refuted;        /* a conflict with no assumption */
    int32_t inputs;     /* how many clauses the formula gave (LRAT IDs 1..inputs) */
    int32_t empty_id;   /* the ID of the formula's first empty clause (0: none) */
    int32_t conflict;   /* the clause of the last conflict (0: the empty clause itself) */
    Vec steps;          /* per kept proof step: clause, negated for a deletion */
    Vec step_lines;     /* its proof line */
    Vec step_trail;     /* the fixed trail's length before it */
    Vec scratch, stack, touched;
    int nomem;
    /* LRAT: per checked step (in the order checked, the last step first) its step index plus 2, then
     * the refs of its hints, then 0; the final conflict's hints are the first record (step -1). */
    int lrat;
    Vec hints;
    uint32_t *seen;     /* per variable: stamp of the hint collection that visited it */
    uint32_t seen_now;
    Vec order;          /* scratch: (trail position, ref) pairs of one collection */
} Checker;

static int grow(Vec *v) {
    int64_t cap = v->cap ? v->cap * 2 : 8;
    int32_t *data = realloc(v->data, (size_t)cap * sizeof(int32_t));
    if (!data) return 0;
    v->data = data;
    v->cap = cap;
    return 1;
}

static inline int vec_push(Vec *v, int32_t x) {
    if (v->n == v->cap && !grow(v)) return 0;
    v->data[v->n++] = x;
    return 1;
}

static inline int32_t lit_index(int64_t lit) { return (int32_t)(lit > 0 ? 2 * lit : -2 * lit + 1); }
static inline int32_t *clause_at(Checker *c, int32_t ref) { return c->arena.data + ref; }

static inline uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* A clause's hash, the same whatever the order of its literals (deletions name clauses as sets). */
static uint64_t hash_of(const int32_t *lits, int64_t n) {
    uint64_t h = 0;
    for (int64_t k = 0; k < n; k++) h += mix((uint64_t)lits[k]);
    return h;
}

static inline void assign(Checker *c, int32_t li, int32_t reason) {
    c->val[li] = 1;
    c->val[li ^ 1] = -1;
    c->reason[li >> 1] = reason;
    c->pos[li >> 1] = (int32_t)c->trail_n;
    c->trail[c->trail_n++] = li;
}

/* Undo the trail down to `length`; fixed literals above it lose their marks too. */
static void backtrack(Checker *c, int64_t length) {
    while (c->trail_n > length) {
        int32_t li = c->trail[--c->trail_n];
        c->val[li] = 0;
        c->val[li ^ 1] = 0;
        c->marked[li >> 1] = 0;
    }
    c->qhead = length;
    if (c->top > length) c->top = length;
}

/* Unit propagation from qhead; 1 on a conflict (its clause in c->conflict). */
static int propagate(Checker *c) {
    while (c->qhead < c->trail_n) {
        int32_t falsified = c->trail[c->qhead++] ^ 1;
        Vec *ws = &c->watches[falsified];
        int32_t *w = ws->data;
        int64_t n = ws->n, i = 0, j = 0;
        while (i < n) {
            int32_t ref = w[i++];
            int32_t *lits = clause_at(c, ref) + HEADER;
            int32_t size = clause_at(c, ref)[SIZE];
            if (lits[0] == falsified) {
                lits[0] = lits[1];
                lits[1] = falsified;
            }
            if (c->val[lits[0]] == 1) {
                w[j++] = ref;
                continue;
            }
            int32_t k = 2;
            while (k < size && c->val[lits[k]] == -1) k++;
            if (k < size) {
                lits[1] = lits[k];
                lits[k] = falsified;
                if (!vec_push(&c->watches[lits[1]], ref)) {
                    c->nomem = 1;
                    return 0;
                }
                continue;
            }
            w[j++] = ref;
            if (c->val[lits[0]] == -1) {
                while (i < n) w[j++] = w[i++];
                ws->n = j;
                c->conflict = ref;
                return 1;
            }
            assign(c, lits[0], ref);
        }
        ws->n = j;
    }
    return 0;
}

/* Fix a literal with no assumption and propagate it; a conflict refutes the formula. */
static void fix(Checker *c, int32_t li, int32_t reason) {
    assign(c, li, reason);
    if (propagate(c)) c->refuted = 1;
    c->top = c->trail_n;
    c->qhead = c->trail_n;
}

/* Put the two best literals to watch first: not false before false, a later false before an earlier one.
 * After the fixed trail is cut back (walking the proof backward), the watches are then the first to be freed. */
static int64_t order_watches(Checker *c, int32_t *lits, int64_t m) {
    int64_t open = 0;
    for (int64_t slot = 0; slot < 2 && slot < m; slot++) {
        int64_t best = slot;
        for (int64_t k = slot + 1; k < m; k++) {
            int32_t a = lits[k], b = lits[best];
            int better = c->val[b] == -1 && (c->val[a] != -1 || c->pos[a >> 1] > c->pos[b >> 1]);
            if (better) best = k;
        }
        int32_t t = lits[slot];
        lits[slot] = lits[best];
        lits[best] = t;
        open += c->val[lits[slot]] != -1;
    }
    return open;
}

static int watch_clause(Checker *c, int32_t ref) {
    int32_t *lits = clause_at(c, ref) + HEADER;
    return vec_push(&c->watches[lits[0]], ref) && vec_push(&c->watches[lits[1]], ref);
}

static void unwatch_one(Vec *ws, int32_t ref) {
    for (int64_t i = 0; i < ws->n; i++) {
        if (ws->data[i] == ref) {
            ws->data[i] = ws->data[--ws->n];
            return;
        }
    }
}

static void unwatch_clause(Checker *c, int32_t ref) {
    int32_t *clause = clause_at(c, ref);
    if (clause[SIZE] < 2) return;
    unwatch_one(&c->watches[clause[HEADER]], ref);
    unwatch_one(&c->watches[clause[HEADER + 1]], ref);
}

static int rehash(Checker *c) {
    uint64_t buckets = (c->mask + 1) * 2;
    int32_t *table = calloc(buckets, sizeof(int32_t));
    if (!table) return 0;
    for (uint64_t b = 0; b <= c->mask; b++) {
        int32_t ref = c->buckets[b];
        while (ref) {
            int32_t *clause = clause_at(c, ref);
            int32_t next = clause[NEXT];
            uint64_t slot = hash_of(clause + HEADER, clause[SIZE]) & (buckets - 1);
            clause[NEXT] = table[slot];
            table[slot] = ref;
            ref = next;
        }
    }
    free(c->buckets);
    c->buckets = table;
    c->mask = buckets - 1;
    return 1;
}

/* The scratch literals without duplicates, stamped, and their hash; -1 for a tautology. */
static int64_t distinct(Checker *c, uint64_t *hash) {
    if (++c->now == 0) {
        memset(c->stamp, 0, (size_t)(2 * c->variables + 2) * sizeof(uint32_t));
        c->now = 1;
    }
    int64_t m = 0;
    for (int64_t i = 0; i < c->scratch.n; i++) {
        int32_t li = c->scratch.data[i];
        if (c->stamp[li] == c->now) continue;
        if (c->stamp[li ^ 1] == c->now) return -1;
        c->stamp[li] = c->now;
        c->scratch.data[m++] = li;
    }
    c->scratch.n = m;
    *hash = hash_of(c->scratch.data, m);
    return m;
}

/* The link to the alive clause equal (as a set) to the m stamped scratch literals of this hash; NULL if none. */
static int32_t *find_alive(Checker *c, uint64_t hash, int64_t m) {
    int32_t *link = &c->buckets[hash & c->mask];
    while (*link) {
        int32_t *clause = clause_at(c, *link);
        if (clause[SIZE] == m) {
            int64_t k = 0;
            while (k < m && c->stamp[clause[HEADER + k]] == c->now) k++;
            if (k == m) return link;
        }
        link = &clause[NEXT];
    }
    return NULL;
}

/* Add the scratch clause; *ref is where it went (0: a tautology or a copy of an alive clause, not kept).
 * 0 when memory runs out. */
static int add_clause(Checker *c, int32_t *ref_out) {
    uint64_t hash;
    int64_t m = distinct(c, &hash);
    *ref_out = 0;
    if (m < 0) return 1;
    if (m == 0) {
        c->refuted = 1;
        c->conflict = 0;
        return 1;
    }
    int32_t *same = find_alive(c, hash, m);
    if (same) { /* already alive (and propagated): one more copy */
        int32_t *clause = clause_at(c, *same);
        if (clause[FLAGS] / COPY < MAX_COPIES) clause[FLAGS] += COPY;
        return 1;
    }
    if (c->arena.n + HEADER + m >= INT32_MAX) return 0;
    int32_t ref = (int32_t)c->arena.n;
    uint64_t slot = hash & c->mask;
    if (!vec_push(&c->arena, (int32_t)m) || !vec_push(&c->arena, c->buckets[slot]) || !vec_push(&c->arena, 0) ||
        !vec_push(&c->arena, 0))
        return 0;
    for (int64_t k = 0; k < m; k++)
        if (!vec_push(&c->arena, c->scratch.data[k])) return 0;
    c->buckets[slot] = ref;
    *ref_out = ref;
    if (++c->alive > (int64_t)c->mask && !rehash(c)) return 0;
    int32_t *lits = clause_at(c, ref) + HEADER;
    int64_t open = order_watches(c, lits, m);
    if (open == 0) {
        c->refuted = 1;
        c->conflict = ref;
        return 1;
    }
    if (m >= 2 && !watch_clause(c, ref)) return 0;
    if ((open == 1 || m == 1) && c->val[lits[0]] == 0) fix(c, lits[0], ref);
    return !c->nomem;
}

/* The alive clause equal to the scratch clause (as a set), unlinked from the hash; 0 if none, or if
 * only a copy of it goes (the clause stays), or if it is a reason (kept). */
static int32_t take_alive(Checker *c) {
    uint64_t hash;
    int64_t m = distinct(c, &hash);
    if (m <= 0) return 0;
    int32_t *link = find_alive(c, hash, m);
    if (!link) return 0;
    int32_t ref = *link;
    int32_t *clause = clause_at(c, ref);
    if (clause[FLAGS] >= COPY) {
        clause[FLAGS] -= COPY;
        return 0;
    }
    int32_t first = clause[HEADER];
    if (c->val[first] == 1 && c->reason[first >> 1] == ref) return 0; /* a reason: kept */
    *link = clause[NEXT];
    c->alive--;
    return ref;
}

/* Mark the clauses behind a conflict (or behind one literal, `start`), back to the assumptions.
 * Fixed literals keep their mark: the clauses behind them are marked once. */
static int mark_reasons(Checker *c, int32_t conflict, int32_t start) {
    c->stack.n = 0;
    c->touched.n = 0;
    if (start >= 0 && !vec_push(&c->stack, start)) return 0;
    if (conflict) {
        int32_t *clause = clause_at(c, conflict);
        clause[FLAGS] |= CORE;
        for (int32_t k = 0; k < clause[SIZE]; k++)
            if (!vec_push(&c->stack, clause[HEADER + k] >> 1)) return 0;
    }
    while (c->stack.n) {
        int32_t v = c->stack.data[--c->stack.n];
        if (c->marked[v]) continue;
        c->marked[v] = 1;
        if (c->pos[v] >= c->top && !vec_push(&c->touched, v)) return 0;
        int32_t ref = c->reason[v];
        if (!ref) continue;
        int32_t *clause = clause_at(c, ref);
        clause[FLAGS] |= CORE;
        for (int32_t k = 0; k < clause[SIZE]; k++) {
            int32_t u = clause[HEADER + k] >> 1;
            if (!c->marked[u] && !vec_push(&c->stack, u)) return 0;
        }
    }
    for (int64_t i = 0; i < c->touched.n; i++) c->marked[c->touched.data[i]] = 0; /* assumed, not fixed */
    return 1;
}


static int by_position(const void *a, const void *b) {
    const int32_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* LRAT: record the hints of one checked lemma (`step`, -1 for the final conflict): the reasons of every
 * literal behind `conflict` (a clause all false), or behind the variable `start` when the lemma has a
 * literal fixed true (its reason is then the clause that ends false), in trail order, the end clause
 * last.  The lemma's own literals (`lemma`, `size`) are given by its negation and are not followed. */
static int record_hints(Checker *c, int32_t step, int32_t conflict, int32_t start, const int32_t *lemma, int32_t size) {
    if (++c->seen_now == 0) {
        memset(c->seen, 0, (size_t)(c->variables + 1) * sizeof(uint32_t));
        c->seen_now = 1;
    }
    for (int32_t k = 0; k < size; k++) c->seen[lemma[k] >> 1] = c->seen_now;
    int32_t end = conflict;
    c->stack.n = 0;
    c->order.n = 0;
    if (start >= 0) {
        end = c->reason[start];
        c->seen[start] = c->seen_now;
    }
    if (!end) return vec_push(&c->hints, step + 2) && vec_push(&c->hints, 0); /* the formula's empty clause */
    int32_t *clause = clause_at(c, end);
    for (int32_t k = 0; k < clause[SIZE]; k++)
        if (!vec_push(&c->stack, clause[HEADER + k] >> 1)) return 0;
    while (c->stack.n) {
        int32_t v = c->stack.data[--c->stack.n];
        if (c->seen[v] == c->seen_now) continue;
        c->seen[v] = c->seen_now;
        int32_t ref = c->reason[v];
        if (!ref || c->val[2 * v] == 0) continue; /* an assumption (the lemma's negation), or not assigned */
        if (!vec_push(&c->order, c->pos[v]) || !vec_push(&c->order, ref)) return 0;
        int32_t *r = clause_at(c, ref);
        for (int32_t k = 0; k < r[SIZE]; k++) {
            int32_t u = r[HEADER + k] >> 1;
            if (c->seen[u] != c->seen_now && !vec_push(&c->stack, u)) return 0;
        }
    }
    qsort(c->order.data, (size_t)(c->order.n / 2), 2 * sizeof(int32_t), by_position);
    if (!vec_push(&c->hints, step + 2)) return 0; /* never 0, which ends a record */
    for (int64_t i = 1; i < c->order.n; i += 2)
        if (!vec_push(&c->hints, c->order.data[i])) return 0;
    return vec_push(&c->hints, end) && vec_push(&c->hints, 0);
}

/* Whether the clause `ref` follows by RUP from the clauses alive; marks what it needs (and with LRAT,
 * records the hints of step `step`). */
static int implied(Checker *c, int32_t ref, int32_t step) {
    int32_t *clause = clause_at(c, ref);
    int32_t *lits = clause + HEADER;
    int64_t base = c->trail_n;
    for (int32_t k = 0; k < clause[SIZE]; k++) {
        int32_t li = lits[k];
        if (c->val[li] == 1) { /* fixed true (a clause's literals are distinct, so not assumed) */
            int ok = mark_reasons(c, 0, li >> 1);
            if (ok && c->lrat) ok = record_hints(c, step, 0, li >> 1, lits, clause[SIZE]);
            backtrack(c, base);
            if (!ok) c->nomem = 1;
            return 1;
        }
        if (c->val[li] == 0) assign(c, li ^ 1, 0);
    }
    int conflict = propagate(c);
    if (conflict && !mark_reasons(c, c->conflict, -1)) c->nomem = 1;
    if (conflict && c->lrat && !record_hints(c, step, c->conflict, -1, lits, clause[SIZE])) c->nomem = 1;
    backtrack(c, base);
    return conflict;
}

typedef struct {
    int code;
    int64_t line, lemmas, deletions, checked;
    int32_t failed; /* the clause of a lemma that does not follow */
    const char *why;
} Outcome;

static inline int is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f'; }

/* Parse one proof line [p, end) into scratch; returns NULL or why it is malformed. *deletion is set. */
static const char *parse_line(Checker *c, const char *p, const char *end, int *deletion) {
    c->scratch.n = 0;
    *deletion = 0;
    if (*p == 'd') {
        *deletion = 1;
        p++;
        if (p < end && !is_space(*p)) return "not a clause";
    }
    int ended = 0;
    while (1) {
        while (p < end && is_space(*p)) p++;
        if (p == end) break;
        if (ended) return "a clause must end with a single 0";
        int negative = 0;
        if (*p == '-') {
            negative = 1;
            p++;
        }
        if (p == end || *p < '0' || *p > '9') return "not a clause";
        int64_t value = 0;
        while (p < end && *p >= '0' && *p <= '9') {
            value = value * 10 + (*p - '0');
            if (value > c->variables) return "a literal names a variable beyond the formula's";
            p++;
        }
        if (p < end && !is_space(*p)) return "not a clause";
        if (value == 0) {
            ended = 1;
            continue;
        }
        if (!vec_push(&c->scratch, lit_index(negative ? -value : value))) {
            c->nomem = 1;
            return "out of memory";
        }
    }
    if (!ended) return "a clause must end with a single 0";
    return NULL;
}

/* A proof text read a line at a time, each line trimmed of blanks at both ends: the reading stretch, ranked and
 * lemmas share (forward keeps its own: it also skips comments and bounds a line's length). */
typedef struct {
    const char *p, *end;
    int64_t line; /* the number of the line last read, from 1 */
} Lines;

/* 0 at the end of the text; else 1, with [*from, *to) the next line (maybe empty). */
static int next_line(Lines *r, const char **from, const char **to) {
    if (r->p >= r->end) return 0;
    const char *p = r->p, *eol = memchr(p, '\n', (size_t)(r->end - p));
    if (!eol) eol = r->end;
    r->p = eol < r->end ? eol + 1 : r->end;
    r->line++;
    while (p < eol && is_space(*p)) p++;
    while (eol > p && is_space(eol[-1])) eol--;
    *from = p;
    *to = eol;
    return 1;
}

/* A blank line, or (skip_zero) a lone 0: no clause to read. */
static inline int nothing_on(const char *p, const char *last, int skip_zero) {
    return p == last || (skip_zero && last - p == 1 && *p == '0');
}

static int keep_step(Checker *c, int32_t step, int64_t line, int64_t trail) {
    return vec_push(&c->steps, step) && vec_push(&c->step_lines, (int32_t)(line > INT32_MAX ? INT32_MAX : line)) &&
           vec_push(&c->step_trail, (int32_t)trail);
}

/* Pass 1: read every line; apply them until the first conflict with no assumption. */
static Outcome forward(Checker *c, const char *text, int64_t length, int64_t max_line) {
    Outcome out = {NO_CONFLICT, 0, 0, 0, 0, 0, NULL};
    const char *p = text, *end = text + length;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        const char *next = eol < end ? eol + 1 : end;
        out.line++;
        if (eol - p > max_line) {
            out.code = FORMAT_ERROR;
            out.why = "longer than the longest line this checker reads";
            return out;
        }
        while (p < eol && is_space(*p)) p++;
        if (p == eol || *p == 'c') {
            p = next;
            continue;
        }
        int deletion;
        const char *why = parse_line(c, p, eol, &deletion);
        if (why) {
            out.code = c->nomem ? TOO_LARGE : FORMAT_ERROR;
            out.why = why;
            return out;
        }
        p = next;
        out.deletions += deletion;
        out.lemmas += !deletion;
        if (c->refuted) continue; /* the rest is read for its form only */
        if (deletion) {
            int32_t ref = take_alive(c);
            if (ref) {
                unwatch_clause(c, ref);
                clause_at(c, ref)[FLAGS] |= DELETED;
                if (!keep_step(c, -ref, out.line, c->trail_n)) c->nomem = 1;
            }
        } else if (c->scratch.n == 0) {
            out.code = LEMMA_FAILS; /* the empty clause, with no conflict yet */
            out.failed = 0;
            return out;
        } else {
            int64_t before = c->trail_n;
            int32_t ref;
            if (!add_clause(c, &ref) || (ref && !keep_step(c, ref, out.line, before))) c->nomem = 1;
        }
        if (c->nomem) {
            out.code = TOO_LARGE;
            return out;
        }
    }
    out.code = c->refuted ? VALID_CONFLICT : NO_CONFLICT;
    return out;
}

/* With no conflict, the goal is a list of clauses instead (`goals`, each ended by 0): each must be alive
 * at the end of the proof, and is marked, so that pass 2 checks the lemmas it rests on.  0 on success
 * (out->code DERIVED), else out->code NOT_DERIVED with out->line the goal's number (from 1). */
static int mark_goals(Checker *c, Outcome *out, const int32_t *goals, int64_t count) {
    int64_t number = 1;
    c->scratch.n = 0;
    for (int64_t i = 0; i < count; i++) {
        if (goals[i] != 0) {
            if (!vec_push(&c->scratch, lit_index(goals[i]))) return 0;
            continue;
        }
        uint64_t hash;
        int64_t m = distinct(c, &hash);
        int32_t *link = m > 0 ? find_alive(c, hash, m) : NULL;
        if (m == 0 || (m > 0 && !link)) {
            out->code = NOT_DERIVED;
            out->line = number;
            return 1;
        }
        if (link) clause_at(c, *link)[FLAGS] |= CORE;
        c->scratch.n = 0;
        number++;
    }
    out->code = DERIVED;
    return 1;
}

/* Pass 2: from the conflict (or the marked goals) back, check each lemma the refutation uses. */
static void backward(Checker *c, Outcome *out) {
    c->top = c->trail_n; /* the conflict's own propagation counts as fixed */
    if (c->refuted && (!mark_reasons(c, c->conflict, -1) || (c->lrat && !record_hints(c, -1, c->conflict, -1, NULL, 0)))) {
        out->code = TOO_LARGE;
        return;
    }
    for (int64_t s = c->steps.n - 1; s >= 0; s--) {
        int32_t step = c->steps.data[s];
        if (step < 0) { /* a deleted clause comes back */
            int32_t *clause = clause_at(c, -step);
            clause[FLAGS] &= ~DELETED;
            if (clause[SIZE] >= 2) {
                order_watches(c, clause + HEADER, clause[SIZE]);
                if (!watch_clause(c, -step)) {
                    out->code = TOO_LARGE;
                    return;
                }
            }
            continue;
        }
        unwatch_clause(c, step);
        clause_at(c, step)[FLAGS] |= DELETED;
        backtrack(c, c->step_trail.data[s]);
        if (!(clause_at(c, step)[FLAGS] & CORE)) continue;
        int follows = implied(c, step, (int32_t)s);
        if (c->nomem) {
            out->code = TOO_LARGE;
            return;
        }
        if (!follows) {
            out->code = LEMMA_FAILS;
            out->line = c->step_lines.data[s];
            out->failed = step;
            return;
        }
        out->checked++;
    }
}


typedef struct {
    char *data;
    size_t n, cap;
} Text;

static int text_grow(Text *t, size_t more) {
    if (t->n + more <= t->cap) return 1;
    size_t cap = t->cap ? t->cap : 1 << 16;
    while (cap < t->n + more) cap *= 2;
    char *data = realloc(t->data, cap);
    if (!data) return 0;
    t->data = data;
    t->cap = cap;
    return 1;
}

static void text_int(Text *t, int64_t x) {
    char digits[24];
    int n = 0;
    uint64_t u = x < 0 ? (uint64_t)(-x) : (uint64_t)x;
    do digits[n++] = (char)('0' + u % 10);
    while ((u /= 10));
    if (x < 0) t->data[t->n++] = '-';
    while (n) t->data[t->n++] = digits[--n];
    t->data[t->n++] = ' ';
}

/* The LRAT text of the checked lemmas, in proof order (the records were made from the last back). */
static int write_lrat(Checker *c, Text *t) {
    int64_t records = 0;
    for (int64_t i = 0; i < c->hints.n; i++) records += c->hints.data[i] == 0;
    int64_t *starts = malloc((size_t)(records ? records : 1) * sizeof(int64_t));
    if (!starts) return 0;
    int64_t r = 0, at = 0;
    for (int64_t i = 0; i < c->hints.n; i++)
        if (c->hints.data[i] == 0) {
            starts[r++] = at;
            at = i + 1;
        }
    int64_t next = c->inputs;
    int ok = 1;
    for (int64_t k = records - 1; k >= 0 && ok; k--) {
        const int32_t *rec = c->hints.data + starts[k];
        int32_t step = rec[0] - 2;
        int32_t ref = step >= 0 ? c->steps.data[step] : 0;
        int32_t size = ref ? clause_at(c, ref)[SIZE] : 0;
        int64_t hints = 0;
        while (rec[1 + hints]) hints++;
        if (!text_grow(t, (size_t)(size + hints + 4) * 13)) {
            ok = 0;
            break;
        }
        text_int(t, ++next);
        if (ref) {
            clause_at(c, ref)[ID] = (int32_t)next;
            for (int32_t j = 0; j < size; j++) {
                int32_t li = clause_at(c, ref)[HEADER + j];
                text_int(t, li & 1 ? -(li >> 1) : li >> 1);
            }
        }
        t->data[t->n++] = '0';
        t->data[t->n++] = ' ';
        for (int64_t j = 0; j < hints; j++) text_int(t, clause_at(c, rec[1 + j])[ID]);
        if (!hints && step < 0 && c->empty_id) text_int(t, c->empty_id); /* the formula gives the empty clause */
        t->data[t->n++] = '0';
        t->data[t->n++] = '\n';
        if (next >= INT32_MAX) ok = 0;
    }
    free(starts);
    return ok;
}

static void release(Checker *c) {
    if (c->watches)
        for (int64_t i = 0; i < 2 * c->variables + 2; i++) free(c->watches[i].data);
    void *blocks[] = {c->watches, c->val,        c->stamp,           c->reason,         c->pos,
                      c->marked,  c->trail,      c->arena.data,      c->buckets,        c->steps.data,
                      c->step_lines.data, c->step_trail.data, c->scratch.data, c->stack.data, c->touched.data,
                      c->hints.data, c->seen, c->order.data};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) free(blocks[i]);
}

static int allocate(Checker *c, int64_t count) {
    uint64_t buckets = 1024;
    while (buckets < (uint64_t)count / 2) buckets *= 2;
    size_t literals = (size_t)(2 * c->variables + 2), variables = (size_t)(c->variables + 1);
    c->val = calloc(literals, 1);
    c->stamp = calloc(literals, sizeof(uint32_t));
    c->watches = calloc(literals, sizeof(Vec));
    c->reason = calloc(variables, sizeof(int32_t));
    c->pos = calloc(variables, sizeof(int32_t));
    c->marked = calloc(variables, 1);
    c->trail = malloc(variables * sizeof(int32_t));
    c->buckets = calloc(buckets, sizeof(int32_t));
    c->mask = buckets - 1;
    c->seen = c->lrat ? calloc(variables, sizeof(uint32_t)) : NULL;
    return c->val && c->stamp && c->watches && c->reason && c->pos && c->marked && c->trail && c->buckets &&
           (!c->lrat || c->seen) && vec_push(&c->arena, 0);
}

/* Add the clauses of `formula` (each ended by 0) as given clauses, their IDs after the c->inputs given before. */
static int add_given(Checker *c, const int32_t *formula, int64_t count) {
    c->scratch.n = 0;
    int32_t id = c->inputs;
    for (int64_t i = 0; i < count; i++) {
        int32_t lit = formula[i];
        if (lit != 0) {
            if (!vec_push(&c->scratch, lit_index(lit))) return 0;
            continue;
        }
        int32_t ref = 0;
        id++;
        if (c->scratch.n == 0 && !c->empty_id) c->empty_id = id;
        if (!c->refuted && !add_clause(c, &ref)) return 0;
        if (ref) clause_at(c, ref)[ID] = id;
        c->scratch.n = 0;
    }
    c->inputs = id;
    return 1;
}

static int load(Checker *c, const int32_t *formula, int64_t count) {
    return allocate(c, count) && add_given(c, formula, count);
}

static void *copy_of(const void *data, size_t size) {
    void *out = malloc(size ? size : 1);
    if (out && size) memcpy(out, data, size);
    return out;
}

static int copy_vec(Vec *to, const Vec *from) {
    to->n = to->cap = from->n;
    to->data = from->n ? copy_of(from->data, (size_t)from->n * sizeof(int32_t)) : NULL;
    return !from->n || to->data;
}

/* `c` (zeroed, its variables and lrat set) as the checker `b` stands after its load: its clauses, watches and fixed
 * trail copied, so that one proof is checked against them and more clauses while `b` stays as it is.  0 when memory
 * runs out (release(c) frees what was copied). */
static int copy_loaded(Checker *c, const Checker *b) {
    size_t literals = (size_t)(2 * b->variables + 2), variables = (size_t)(b->variables + 1);
    c->trail_n = b->trail_n;
    c->qhead = b->qhead;
    c->top = b->top;
    c->mask = b->mask;
    c->alive = b->alive;
    c->refuted = b->refuted;
    c->inputs = b->inputs;
    c->empty_id = b->empty_id;
    c->conflict = b->conflict;
    c->val = copy_of(b->val, literals);
    c->stamp = calloc(literals, sizeof(uint32_t));
    c->reason = copy_of(b->reason, variables * sizeof(int32_t));
    c->pos = copy_of(b->pos, variables * sizeof(int32_t));
    c->marked = calloc(variables, 1);
    c->trail = copy_of(b->trail, variables * sizeof(int32_t));
    c->buckets = copy_of(b->buckets, (size_t)(b->mask + 1) * sizeof(int32_t));
    c->watches = calloc(literals, sizeof(Vec));
    c->seen = c->lrat ? calloc(variables, sizeof(uint32_t)) : NULL;
    if (!c->val || !c->stamp || !c->reason || !c->pos || !c->marked || !c->trail || !c->buckets || !c->watches ||
        (c->lrat && !c->seen))
        return 0;
    for (size_t i = 0; i < literals; i++)
        if (!copy_vec(&c->watches[i], &b->watches[i])) return 0;
    return copy_vec(&c->arena, &b->arena);
}

/* The lemmas checked (the core), as DRUP lines in proof order with no deletion, and the empty clause after them
 * for a refutation: a proof of the same conflict or goals from the clauses given that it rests on (every
 * lemma follows by RUP from those and the lines before it, since it did from fewer clauses). */
static int write_core(Checker *c, Text *t, int refuted) {
    for (int64_t s = 0; s < c->steps.n; s++) {
        int32_t ref = c->steps.data[s];
        if (ref <= 0 || !(clause_at(c, ref)[FLAGS] & CORE)) continue;
        int32_t size = clause_at(c, ref)[SIZE];
        if (!text_grow(t, (size_t)(size + 2) * 13)) return 0;
        for (int32_t j = 0; j < size; j++) {
            int32_t li = clause_at(c, ref)[HEADER + j];
            text_int(t, li & 1 ? -(li >> 1) : li >> 1);
        }
        t->data[t->n++] = '0';
        t->data[t->n++] = '\n';
    }
    if (refuted) {
        if (!text_grow(t, 2)) return 0;
        t->data[t->n++] = '0';
        t->data[t->n++] = '\n';
    }
    return 1;
}

/* The indexes (ID - 1: from 0, in the order given) of the formula's clauses that the checked lemmas and the
 * conflict (or goals) rest on: those pass 2 marked, ascending.  A clause given twice is counted as its first. */
static PyObject *used_inputs(Checker *c) {
    Vec ids = {0};
    for (int64_t ref = 1; ref < c->arena.n; ref += HEADER + c->arena.data[ref + SIZE]) {
        const int32_t *clause = c->arena.data + ref;
        if (clause[ID] >= 1 && clause[ID] <= c->inputs && (clause[FLAGS] & CORE) && !vec_push(&ids, clause[ID] - 1)) {
            free(ids.data);
            return PyErr_NoMemory();
        }
    }
    PyObject *out = PyBytes_FromStringAndSize(ids.data ? (const char *)ids.data : "", (Py_ssize_t)(ids.n * 4));
    free(ids.data);
    return out;
}

/* ---- A formula loaded once and checked against many times (a cube-and-conquer split's nodes) ----
 *
 * Why: a side-8 formula's 150,000 clauses took each node's check some 15 ms to load (hashed, watched, its units
 * propagated), against a few ms for the proof of most small nodes; a base holds them loaded, and each check
 * starts from a copy of it (memory copied, nothing hashed or propagated again) with the node's cube and the
 * clauses passed on added after, as if given after the formula. */

#define BASE_NAME "sigmar.runners.checking._drup.base"

static void base_free(PyObject *capsule) {
    Checker *b = PyCapsule_GetPointer(capsule, BASE_NAME);
    if (b) {
        release(b);
        free(b);
    }
}

static PyObject *base(PyObject *self, PyObject *args) {
    Py_buffer formula;
    long long variables;
    if (!PyArg_ParseTuple(args, "y*L", &formula, &variables)) return NULL;
    const int32_t *lits = formula.buf;
    int64_t count = formula.len / (Py_ssize_t)sizeof(int32_t);
    int beyond = variables < 0;
    for (int64_t i = 0; i < count; i++) beyond |= lits[i] > variables || -(int64_t)lits[i] > variables;
    if (beyond || (count && lits[count - 1] != 0)) {
        PyBuffer_Release(&formula);
        PyErr_SetString(PyExc_ValueError, beyond ? "a formula literal is beyond the variable count"
                                                 : "the formula does not end with 0");
        return NULL;
    }
    Checker *b = calloc(1, sizeof(Checker));
    int loaded = 0;
    if (b) {
        b->variables = variables;
        Py_BEGIN_ALLOW_THREADS
        loaded = load(b, lits, count);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&formula);
    PyObject *capsule = loaded ? PyCapsule_New(b, BASE_NAME, base_free) : NULL;
    if (!capsule) {
        if (b) release(b);
        free(b);
        return loaded ? NULL : PyErr_NoMemory();
    }
    return capsule;
}

static PyObject *check(PyObject *self, PyObject *args) {
    Py_buffer formula, proof, goals = {0};
    long long variables, max_line;
    PyObject *goals_obj = Py_None, *base_obj = Py_None;
    int lrat = 0, want_used = 0;
    if (!PyArg_ParseTuple(args, "y*Ly*L|OppO", &formula, &variables, &proof, &max_line, &goals_obj, &lrat, &want_used,
                          &base_obj))
        return NULL;
    const Checker *loaded_base = NULL;
    if (base_obj != Py_None) {
        loaded_base = PyCapsule_GetPointer(base_obj, BASE_NAME);
        if (loaded_base && loaded_base->variables != variables)
            PyErr_SetString(PyExc_ValueError, "the base was loaded with another variable count");
        if (PyErr_Occurred()) {
            PyBuffer_Release(&formula);
            PyBuffer_Release(&proof);
            return NULL;
        }
    }
    if (goals_obj != Py_None && PyObject_GetBuffer(goals_obj, &goals, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&formula);
        PyBuffer_Release(&proof);
        return NULL;
    }
    Checker c;
    memset(&c, 0, sizeof c);
    c.variables = variables;
    c.lrat = lrat;
    const int32_t *lits = formula.buf;
    int64_t count = formula.len / (Py_ssize_t)sizeof(int32_t);
    const int32_t *goal_lits = goals.buf;
    int64_t goal_count = goals.buf ? goals.len / (Py_ssize_t)sizeof(int32_t) : 0;
    int beyond = 0;
    for (int64_t i = 0; i < count; i++) beyond |= lits[i] > variables || -(int64_t)lits[i] > variables;
    for (int64_t i = 0; i < goal_count; i++) beyond |= goal_lits[i] > variables || -(int64_t)goal_lits[i] > variables;
    if (beyond || (goal_count && goal_lits[goal_count - 1] != 0)) {
        PyBuffer_Release(&formula);
        PyBuffer_Release(&proof);
        if (goals.buf) PyBuffer_Release(&goals);
        PyErr_SetString(PyExc_ValueError, beyond ? "a formula or goal literal is beyond the variable count"
                                                 : "the goals do not end with 0");
        return NULL;
    }
    int loaded, written = 1;
    Text text = {0};
    Outcome out = {TOO_LARGE, 0, 0, 0, 0, 0, NULL};
    Py_BEGIN_ALLOW_THREADS
    loaded = loaded_base ? copy_loaded(&c, loaded_base) && add_given(&c, lits, count) : load(&c, lits, count);
    if (loaded) {
        out = forward(&c, proof.buf, proof.len, max_line);
        if (out.code == NO_CONFLICT && goals.buf) {
            if (!mark_goals(&c, &out, goal_lits, goal_count)) out.code = TOO_LARGE;
        }
        if (out.code == VALID_CONFLICT || out.code == DERIVED) backward(&c, &out);
        if (lrat && (out.code == VALID_CONFLICT || out.code == DERIVED)) written = write_lrat(&c, &text);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&formula);
    PyBuffer_Release(&proof);
    if (goals.buf) PyBuffer_Release(&goals);
    if (!loaded || out.code == TOO_LARGE || !written) {
        release(&c);
        free(text.data);
        return PyErr_NoMemory();
    }
    PyObject *used = Py_NewRef(Py_None), *core = Py_NewRef(Py_None);
    if (want_used && (out.code == VALID_CONFLICT || out.code == DERIVED)) {
        Py_DECREF(used);
        Py_DECREF(core);
        Text kept = {0};
        used = used_inputs(&c);
        core = write_core(&c, &kept, out.code == VALID_CONFLICT)
                   ? PyBytes_FromStringAndSize(kept.data ? kept.data : "", (Py_ssize_t)kept.n)
                   : PyErr_NoMemory();
        free(kept.data);
        if (!used || !core) {
            Py_XDECREF(used);
            Py_XDECREF(core);
            release(&c);
            free(text.data);
            return NULL;
        }
    }
    PyObject *detail;
    if (out.code == LEMMA_FAILS) {
        int32_t size = out.failed ? clause_at(&c, out.failed)[SIZE] : 0;
        detail = PyList_New(size);
        for (int32_t i = 0; detail && i < size; i++) {
            int32_t li = clause_at(&c, out.failed)[HEADER + i];
            PyList_SET_ITEM(detail, i, PyLong_FromLong(li & 1 ? -(li >> 1) : li >> 1));
        }
    } else if (out.why) {
        detail = PyUnicode_FromString(out.why);
    } else {
        detail = Py_NewRef(Py_None);
    }
    release(&c);
    PyObject *lrat_text = Py_NewRef(Py_None);
    if (lrat && (out.code == VALID_CONFLICT || out.code == DERIVED)) {
        Py_DECREF(lrat_text);
        lrat_text = PyBytes_FromStringAndSize(text.data ? text.data : "", (Py_ssize_t)text.n);
    }
    free(text.data);
    if (!detail || !lrat_text) {
        Py_XDECREF(detail);
        Py_XDECREF(lrat_text);
        Py_DECREF(used);
        Py_DECREF(core);
        return NULL;
    }
    if (want_used)
        return Py_BuildValue("iLLLLNNNN", out.code, (long long)out.line, (long long)out.lemmas,
                             (long long)out.deletions, (long long)out.checked, detail, lrat_text, used, core);
    Py_DECREF(used);
    Py_DECREF(core);
    if (!lrat) {
        Py_DECREF(lrat_text);
        return Py_BuildValue("iLLLLN", out.code, (long long)out.line, (long long)out.lemmas, (long long)out.deletions,
                             (long long)out.checked, detail);
    }
    return Py_BuildValue("iLLLLNN", out.code, (long long)out.line, (long long)out.lemmas, (long long)out.deletions,
                         (long long)out.checked, detail, lrat_text);
}


/* ---- A cube-and-conquer node's proof stretch (runners/cubes/node.py), read in one pass ----
 *
 * Why here: a node that splits passes on the lemmas alive at the end of its stretch, and weighs its
 * split among the variables its lemmas used most; read in Python, line by line, that was about a
 * tenth of the node's CPU on side 8 (issue 49).  The rules are node.py's _stretch_in_python (its
 * property test holds the two equal): blank lines and bare "0" lines are left out of the proof; a
 * lemma adds one copy of its clause (a clause is its set of literals); a deletion takes one alive
 * copy off, if there is one (and then its literals count as deleted), else it is left out of the
 * proof (it deletes a premise: the checker keeps that clause, which is sound, and Glucose's deletions
 * of the formula's clauses satisfied once a cube's literals are fixed were most of a node's proof
 * text: 3 MB for 25 conflicts); the clauses alive at the end are given once each, in the order each
 * was first added, as first written. */

typedef struct {
    Vec arena;        /* per clause: SIZE, NEXT (hash chain), COUNT (alive copies), its literals as first
                       * written, then sorted */
    int32_t *buckets; /* hash -> first clause (0: none) */
    uint64_t mask;
    int64_t clauses;
    Vec sorted;       /* scratch */
} Alive;

enum { A_SIZE = 0, A_NEXT = 1, A_COUNT = 2, A_HEADER = 3 };

static int by_value(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Sorted ascending: by insertion up to 16 values (a learnt clause mostly has fewer), else by qsort.  Why: glibc's
 * qsort is a merge sort through a buffer and a call a comparison; for a node's 2-16 literals a clause it was most of
 * the stretch's CPU beside the parsing (callgrind, side-8 deal 844's split: 54 of 180 million instructions). */
static void sort_small(int32_t *v, int64_t n) {
    if (n > 16) {
        qsort(v, (size_t)n, sizeof(int32_t), by_value);
        return;
    }
    for (int64_t i = 1; i < n; i++) {
        int32_t x = v[i];
        int64_t j = i;
        for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
        v[j] = x;
    }
}

static uint64_t sequence_hash(const int32_t *lits, int64_t n) {
    uint64_t h = (uint64_t)n;
    for (int64_t k = 0; k < n; k++) h = mix(h ^ (uint64_t)(uint32_t)lits[k]);
    return h;
}

static int alive_rehash(Alive *a) {
    uint64_t buckets = (a->mask + 1) * 2;
    int32_t *table = calloc(buckets, sizeof(int32_t));
    if (!table) return 0;
    for (int32_t ref = 1; ref < a->arena.n; ref += A_HEADER + 2 * a->arena.data[ref + A_SIZE]) {
        int32_t *clause = a->arena.data + ref;
        uint64_t slot = sequence_hash(clause + A_HEADER + clause[A_SIZE], clause[A_SIZE]) & (buckets - 1);
        clause[A_NEXT] = table[slot];
        table[slot] = ref;
    }
    free(a->buckets);
    a->buckets = table;
    a->mask = buckets - 1;
    return 1;
}

/* The clause of `lits` (n, as written): its ref, made (with no copy alive) when `make` and it is new;
 * 0 when it is not there and not made; -1 when memory runs out. */
static int32_t alive_find(Alive *a, const int32_t *lits, int64_t n, int make) {
    a->sorted.n = 0;
    for (int64_t k = 0; k < n; k++)
        if (!vec_push(&a->sorted, lits[k])) return -1;
    sort_small(a->sorted.data, n);
    uint64_t hash = sequence_hash(a->sorted.data, n);
    for (int32_t ref = a->buckets[hash & a->mask]; ref; ref = a->arena.data[ref + A_NEXT]) {
        const int32_t *clause = a->arena.data + ref;
        if (clause[A_SIZE] == n && !memcmp(clause + A_HEADER + n, a->sorted.data, (size_t)n * sizeof(int32_t)))
            return ref;
    }
    if (!make) return 0;
    if (a->arena.n + A_HEADER + 2 * n >= INT32_MAX) return -1;
    int32_t ref = (int32_t)a->arena.n;
    uint64_t slot = hash & a->mask;
    if (!vec_push(&a->arena, (int32_t)n) || !vec_push(&a->arena, a->buckets[slot]) || !vec_push(&a->arena, 0))
        return -1;
    for (int64_t k = 0; k < n; k++)
        if (!vec_push(&a->arena, lits[k])) return -1;
    for (int64_t k = 0; k < n; k++)
        if (!vec_push(&a->arena, a->sorted.data[k])) return -1;
    a->buckets[slot] = ref;
    if (++a->clauses > (int64_t)a->mask && !alive_rehash(a)) return -1;
    return ref;
}

typedef struct {
    int32_t variable, count, first;
} Used;

static int by_use(const void *a, const void *b) {
    const Used *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return (x->first > y->first) - (x->first < y->first);
}

static PyObject *int32_bytes(const int32_t *data, int64_t n) {
    return PyBytes_FromStringAndSize(n ? (const char *)data : "", (Py_ssize_t)(n * (int64_t)sizeof(int32_t)));
}

/* The parse-only Checker (its scratch and variables) stretch, ranked and lemmas read lines with; 0, the text's
 * buffer released and ValueError set, for a variable count out of range. */
static int line_parser(Checker *c, Py_buffer *text, long long variables) {
    if (variables < 0 || variables > INT32_MAX / 2) {
        PyBuffer_Release(text);
        PyErr_SetString(PyExc_ValueError, "a variable count out of range");
        return 0;
    }
    memset(c, 0, sizeof *c);
    c->variables = variables;
    return 1;
}

static PyObject *stretch(PyObject *self, PyObject *args) {
    Py_buffer text;
    long long variables;
    int split = 0;
    if (!PyArg_ParseTuple(args, "y*L|p", &text, &variables, &split)) return NULL;
    Checker c; /* its parse_line only: scratch, variables */
    if (!line_parser(&c, &text, variables)) return NULL;
    Alive a;
    memset(&a, 0, sizeof a);
    Text proof = {0};
    Vec deleted = {0};
    Used *use = NULL;
    uint8_t *gone = NULL; /* per literal index: among the deleted */
    const char *why = NULL;
    int64_t order = 0;
    int ok = 1;
    Lines r = {text.buf, (const char *)text.buf + text.len, 0};
    Py_BEGIN_ALLOW_THREADS
    a.buckets = calloc(1024, sizeof(int32_t));
    a.mask = 1023;
    use = calloc((size_t)variables + 1, sizeof(Used));
    gone = calloc(2 * (size_t)variables + 2, 1);
    ok = a.buckets && use && gone && vec_push(&a.arena, 0);
    const char *p, *last;
    while (ok && !why && next_line(&r, &p, &last)) {
        if (nothing_on(p, last, 1)) continue;
        int deletion;
        why = parse_line(&c, p, last, &deletion);
        if (why) break;
        int64_t n = c.scratch.n;
        int32_t *lits = c.scratch.data;
        for (int64_t k = 0; k < n; k++) lits[k] = lits[k] & 1 ? -(lits[k] >> 1) : lits[k] >> 1;
        int32_t ref = alive_find(&a, lits, n, !deletion);
        if (ref < 0) {
            ok = 0;
            break;
        }
        int keep = 1;
        if (!deletion) {
            a.arena.data[ref + A_COUNT]++;
            for (int64_t k = 0; k < n; k++) {
                Used *u = &use[lits[k] < 0 ? -lits[k] : lits[k]];
                if (!u->count++) u->first = (int32_t)order++;
            }
        } else if (ref && a.arena.data[ref + A_COUNT] > 0) {
            a.arena.data[ref + A_COUNT]--;
            for (int64_t k = 0; k < n; k++) {
                int32_t li = lit_index(lits[k]);
                if (!gone[li]) {
                    gone[li] = 1;
                    if (!vec_push(&deleted, lits[k])) ok = 0;
                }
            }
        } else {
            keep = 0; /* a premise's deletion: left out */
        }
        if (keep) {
            if (!text_grow(&proof, (size_t)(last - p) + 1)) {
                ok = 0;
                break;
            }
            memcpy(proof.data + proof.n, p, (size_t)(last - p));
            proof.n += (size_t)(last - p);
            proof.data[proof.n++] = '\n';
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&text);
    PyObject *result = NULL;
    if (!ok || c.nomem) {
        PyErr_NoMemory();
    } else if (why) {
        PyErr_Format(PyExc_ValueError, "line %lld of the proof: %s", (long long)r.line, why);
    } else if (!split) {
        result = Py_BuildValue("(y#OOO)", proof.data ? proof.data : "", (Py_ssize_t)proof.n, Py_None, Py_None, Py_None);
    } else {
        Vec alive = {0}, ranked = {0};
        for (int32_t ref = 1; ok && ref < a.arena.n; ref += A_HEADER + 2 * a.arena.data[ref + A_SIZE]) {
            const int32_t *clause = a.arena.data + ref;
            if (clause[A_COUNT] <= 0) continue;
            for (int32_t k = 0; ok && k < clause[A_SIZE]; k++) ok = vec_push(&alive, clause[A_HEADER + k]);
            ok = ok && vec_push(&alive, 0);
        }
        int64_t m = 0;
        for (int64_t v = 1; v <= variables; v++)
            if (use[v].count) {
                use[m] = use[v];
                use[m++].variable = (int32_t)v;
            }
        qsort(use, (size_t)m, sizeof(Used), by_use);
        for (int64_t k = 0; ok && k < m; k++) ok = vec_push(&ranked, use[k].variable);
        if (!ok) {
            PyErr_NoMemory();
        } else {
            PyObject *alive_bytes = int32_bytes(alive.data, alive.n), *ranked_bytes = int32_bytes(ranked.data, ranked.n),
                     *deleted_bytes = int32_bytes(deleted.data, deleted.n);
            if (alive_bytes && ranked_bytes && deleted_bytes)
                result = Py_BuildValue("(y#OOO)", proof.data ? proof.data : "", (Py_ssize_t)proof.n, alive_bytes,
                                       ranked_bytes, deleted_bytes);
            Py_XDECREF(alive_bytes);
            Py_XDECREF(ranked_bytes);
            Py_XDECREF(deleted_bytes);
        }
        free(alive.data);
        free(ranked.data);
    }
    free(proof.data);
    free(deleted.data);
    free(use);
    free(gone);
    free(a.arena.data);
    free(a.buckets);
    free(a.sorted.data);
    free(c.scratch.data);
    return result;
}


/* Only the ranking of stretch(text, variables, true): the variables its lemmas name, the most often named first
 * (ties: the first named first), as native int32 bytes.  Why: a node whose budget ran out weighs its split by it
 * before trying the split's sides, and its proof and passed-on clauses are read once after the tries; the
 * whole stretch read twice was a tenth of a side-8 split node's non-solving CPU (issue 49, wave 10).  A line is
 * only parsed here: no clause is hashed, sorted or copied. */
static PyObject *ranked(PyObject *self, PyObject *args) {
    Py_buffer text;
    long long variables;
    if (!PyArg_ParseTuple(args, "y*L", &text, &variables)) return NULL;
    Checker c; /* its parse_line only: scratch, variables */
    if (!line_parser(&c, &text, variables)) return NULL;
    Used *use = NULL;
    Vec order = {0};
    const char *why = NULL;
    int64_t next_first = 0, m = 0;
    int ok = 1;
    Lines r = {text.buf, (const char *)text.buf + text.len, 0};
    Py_BEGIN_ALLOW_THREADS
    use = calloc((size_t)variables + 1, sizeof(Used));
    ok = use != NULL;
    const char *p, *last;
    while (ok && !why && next_line(&r, &p, &last)) {
        if (nothing_on(p, last, 1)) continue;
        int deletion;
        why = parse_line(&c, p, last, &deletion);
        if (why) break;
        for (int64_t k = 0; !deletion && k < c.scratch.n; k++) {
            Used *u = &use[c.scratch.data[k] >> 1];
            if (!u->count++) u->first = (int32_t)next_first++;
        }
    }
    if (ok && !why) {
        for (int64_t v = 1; v <= variables; v++)
            if (use[v].count) {
                use[m] = use[v];
                use[m++].variable = (int32_t)v;
            }
        qsort(use, (size_t)m, sizeof(Used), by_use);
        for (int64_t k = 0; ok && k < m; k++) ok = vec_push(&order, use[k].variable);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&text);
    PyObject *result = NULL;
    if (!ok || c.nomem)
        PyErr_NoMemory();
    else if (why)
        PyErr_Format(PyExc_ValueError, "line %lld of the proof: %s", (long long)r.line, why);
    else
        result = int32_bytes(order.data, order.n);
    free(use);
    free(order.data);
    free(c.scratch.data);
    return result;
}

/* Lemma lines (DRUP text with no deletion, as check's core writes them) as flat clauses, native int32, each
 * ended by 0.  Why: the rest of a split's check is given the lemmas its first part checked, and read by
 * int() a token that was 5-15 ms of a side-8 split's last check, on the split's critical path (wave 10). */
static PyObject *lemmas(PyObject *self, PyObject *args) {
    Py_buffer text;
    long long variables;
    if (!PyArg_ParseTuple(args, "y*L", &text, &variables)) return NULL;
    Checker c; /* its parse_line only: scratch, variables */
    if (!line_parser(&c, &text, variables)) return NULL;
    Vec flat = {0};
    const char *why = NULL;
    int ok = 1;
    Lines r = {text.buf, (const char *)text.buf + text.len, 0};
    Py_BEGIN_ALLOW_THREADS
    const char *p, *last;
    while (ok && !why && next_line(&r, &p, &last)) {
        if (nothing_on(p, last, 0)) continue;
        int deletion;
        why = parse_line(&c, p, last, &deletion);
        if (!why && deletion) why = "a deletion (lemmas only here)";
        for (int64_t k = 0; !why && ok && k < c.scratch.n; k++) {
            int32_t li = c.scratch.data[k];
            ok = vec_push(&flat, li & 1 ? -(li >> 1) : li >> 1);
        }
        if (!why) ok = ok && vec_push(&flat, 0);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&text);
    PyObject *result = NULL;
    if (!ok || c.nomem)
        PyErr_NoMemory();
    else if (why)
        PyErr_Format(PyExc_ValueError, "line %lld of the lemmas: %s", (long long)r.line, why);
    else
        result = int32_bytes(flat.data, flat.n);
    free(flat.data);
    free(c.scratch.data);
    return result;
}

/* Clauses given flat (native int32, each ended by 0) as lists of ints: rup_check.unflatten's work, for
 * the clauses a cube node loads into its solver and checks against (tens of thousands a node). */
static PyObject *clauses(PyObject *self, PyObject *args) {
    Py_buffer flat;
    if (!PyArg_ParseTuple(args, "y*", &flat)) return NULL;
    const int32_t *lits = flat.buf;
    Py_ssize_t n = flat.len / (Py_ssize_t)sizeof(int32_t), start = 0;
    PyObject *out = PyList_New(0);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        if (lits[i] != 0) continue;
        PyObject *clause = PyList_New(i - start);
        for (Py_ssize_t k = start; clause && k < i; k++) {
            PyObject *literal = PyLong_FromLong(lits[k]);
            if (!literal) Py_CLEAR(clause);
            else PyList_SET_ITEM(clause, k - start, literal);
        }
        if (!clause || PyList_Append(out, clause) < 0) Py_CLEAR(out);
        Py_XDECREF(clause);
        start = i + 1;
    }
    PyBuffer_Release(&flat);
    return out;
}

static PyMethodDef methods[] = {
    {"clauses", clauses, METH_VARARGS,
     "clauses(flat) -> list[list[int]]\n\nflat: native int32 literals, each clause ended by 0 (a trailing clause with no 0 is left out)."},
    {"stretch", stretch, METH_VARARGS,
     "stretch(text, variables[, split]) -> (proof, alive, ranked, deleted)\n\n"
     "A cube-and-conquer node's proof stretch as Glucose wrote it (DRUP text bytes).  proof: its lines\n"
     "without blank ones, bare '0' ones and the deletions of clauses it did not add (a premise's), each\n"
     "ended by a newline.  With split (true), the rest as\n"
     "native int32 bytes (else None): alive, the lemmas alive at its end, each once, in the order first\n"
     "added, each ended by 0; ranked, the variables its lemmas name, the most often named first (ties: the\n"
     "first named first); deleted, the literals of the deletions that took an alive copy off, each once.\n"
     "ValueError names a line that does not parse."},
    {"ranked", ranked, METH_VARARGS,
     "ranked(text, variables) -> bytes\n\n"
     "stretch(text, variables, True)'s ranked alone (native int32 bytes), the lines parsed and nothing kept.\n"
     "ValueError names a line that does not parse."},
    {"lemmas", lemmas, METH_VARARGS,
     "lemmas(text, variables) -> bytes\n\n"
     "DRUP lemma lines (no deletion) as flat clauses: native int32 literals, each clause ended by 0 (blank lines\n"
     "skipped; the empty clause is a lone 0).  ValueError names a line that does not parse or deletes.\n"},
    {"base", base, METH_VARARGS,
     "base(formula, variables) -> base\n\n"
     "formula loaded once (native int32 literals, each clause ended by 0), for check's base."},
    {"check", check, METH_VARARGS,
     "check(formula, variables, proof, max_line[, goals[, lrat[, used[, base]]]]) -> (code, line, lemmas, deletions,\n"
     "checked, detail[, lrat])\n\n"
     "formula: native int32 literals, each clause ended by 0; proof: DRUP text bytes.\n"
     "code 1: refuted, every lemma it uses checked ('checked' of them); 2: the lemma on 'line' does\n"
     "not follow (detail: its literals); 3: no conflict is reached; 4: 'line' does not parse\n"
     "(detail: why).\n"
     "goals (int32 clauses like formula, or None): with no conflict, each goal must be a clause alive at\n"
     "the end of the proof, and the lemmas they rest on are checked: code 6, every goal derived; 7, goal\n"
     "number 'line' (from 1) is not among the clauses at the end.\n"
     "lrat (true): one more item, the LRAT text of the lemmas checked (bytes; None unless code 1 or 6).\n"
     "used (true): two more items after the LRAT's (None without lrat), each None unless code 1 or 6: the\n"
     "indexes of the formula's clauses (from 0, in the order given) that the lemmas checked and the conflict or\n"
     "goals rest on, as native int32 (bytes); and those lemmas as DRUP text in proof order, no deletion,\n"
     "then the empty clause for a refutation (bytes).\n"
     "base (from base(), with the same variables, or None): the proof is checked against base's formula and then\n"
     "formula's clauses, as if given in one formula, base's first (the indexes count base's clauses first)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_drup", "A backward DRUP checker honouring deletions.",
                                    -1, methods};

PyMODINIT_FUNC PyInit__drup(void) { return PyModule_Create(&module); }
