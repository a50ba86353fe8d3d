/* The rule engine's replay of a move sequence, compiled (models/rules.py first_bad_move).
 *
 * Why: every "solved" of a batch is replayed, and the replay in Python (some 50 us for a side-6 board's 28
 * moves) cost a board nearly a tenth of what its search costs (issue 48: a board should cost what its
 * solving costs).  This is the same reading of the rules as rules._bad_move_read, over an array of the
 * cells held: no table of the search's is read (a wrong table of the search's cannot make a wrong move
 * pass), and the geometry is the replay's own (rules._replay_ring, from hexgrid.ring_neighbours).
 *
 *   first_bad_move(index, ring, tiles, moves) -> int | None
 *
 * index: the side's cells (Hex) to their index in reading order; ring: six neighbour indexes a cell as
 * native int32s (-1: off the board), in ring order.  A cell that is a tuple of two ints (the board's and the
 * search's own) is placed by its coordinates, in the same reading order (row r + side - 1, then q from the
 * row's first): two dict look-ups a move and one a tile, each hashing a tuple, were a third of the replay;
 * any other cell is looked up in index, as before (tests/test_properties.py holds both to the Python reading).  None: every move legal and the board cleared; n >= 1:
 * move n is the first illegal one; 0: tiles left; -1: a tile off the side, or two on one cell; -2: not read
 * here (a cell that is no plain key, a symbol that is no one-character string, a side of over MAXCELLS
 * cells): the caller replays in Python, which says the same or raises as it did.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#include <string.h>

#define MAXCELLS 1024
#define ASK (-2)

static PyObject *s_cell, *s_symbol, *s_cells;

#include "_slot_get.h"

/* The index of a cell, -1 off the side, ASK when it cannot be looked up (unhashable: Python raises). */
static int cell_index(PyObject *index, PyObject *cell, int count) {
    PyObject *found = PyDict_GetItemWithError(index, cell); /* borrowed */
    if (found == NULL) {
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return ASK;
        }
        return -1;
    }
    long c = PyLong_AsLong(found);
    if (c == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return ASK;
    }
    return (c < 0 || c >= count) ? ASK : (int)c;
}

/* Per row of a side, the index of its first cell; the side, 0 when count is no side's number of cells. */
typedef struct {
    int side;
    int first[2 * 19]; /* a side of MAXCELLS cells or fewer has at most 37 rows */
} Rows;

static void rows_of(Rows *rows, int count) {
    rows->side = 0;
    for (int d = 1; 3 * d * (d - 1) + 1 <= count && 2 * d - 1 <= 2 * 19; d++)
        if (3 * d * (d - 1) + 1 == count) rows->side = d;
    int radius = rows->side - 1, at = 0;
    for (int row = 0; row < 2 * rows->side - 1; row++) {
        int r = row - radius;
        int lo = -radius > -r - radius ? -radius : -r - radius, hi = radius < -r + radius ? radius : -r + radius;
        rows->first[row] = at;
        at += hi - lo + 1;
    }
}

/* The index of a cell: by its coordinates when it is an exact tuple of two exact ints (or bools, which a dict
 * takes for the ints they equal), -1 off the side; else cell_index. */
static int cell_at(const Rows *rows, PyObject *index, PyObject *cell, int count) {
    if (rows->side && PyTuple_CheckExact(cell) && PyTuple_GET_SIZE(cell) == 2) {
        PyObject *a = PyTuple_GET_ITEM(cell, 0), *b = PyTuple_GET_ITEM(cell, 1);
        if ((PyLong_CheckExact(a) || PyBool_Check(a)) && (PyLong_CheckExact(b) || PyBool_Check(b))) {
            int over_a = 0, over_b = 0;
            long q = PyLong_AsLongAndOverflow(a, &over_a), r = PyLong_AsLongAndOverflow(b, &over_b);
            long radius = rows->side - 1;
            if (over_a || over_b || labs(q) > radius || labs(r) > radius || labs(q + r) > radius) return -1;
            long lo = -radius > -r - radius ? -radius : -r - radius;
            return rows->first[r + radius] + (int)(q - lo);
        }
    }
    return cell_index(index, cell, count);
}

static int is_metal(int s) { return s >= '1' && s <= '9'; }
static int is_element(int s) { return s == 'a' || s == 'e' || s == 'f' || s == 'w'; }

/* rules.pairs_with: whether tiles of symbols a and b pair, the current metal and gold given (digits, -1: none). */
static int pairs(int a, int b, int current, int gold) {
    if (is_element(a)) return a == b || b == 's';
    if (a == 's') return b == 's' || is_element(b);
    if (a == 'v') return b == 'm';
    if (a == 'm') return b == 'v';
    if (a == 'q') return is_metal(b) && b - '0' == current && b - '0' != gold;
    if (is_metal(a)) return b == 'q' && a - '0' == current && a - '0' != gold;
    return 0;
}

typedef struct {
    unsigned char held[MAXCELLS]; /* 1 where a tile is */
    int sym[MAXCELLS];            /* its symbol's character */
    int metals[10];               /* tiles left of each metal digit */
    int left;                     /* tiles left */
    const int *ring;
    Rows rows;
} Replay;

/* Whether the tile on cell c is free: three ring-consecutive neighbours hold no tile (off the board: none). */
static int is_free(const Replay *r, int c) {
    const int *n = r->ring + 6 * c;
    for (int k = 0; k < 6; k++) {
        int a = n[k], b = n[(k + 1) % 6], d = n[(k + 2) % 6];
        if ((a < 0 || !r->held[a]) && (b < 0 || !r->held[b]) && (d < 0 || !r->held[d])) return 1;
    }
    return 0;
}

/* The start: -1 a tile off the side or two on a cell, ASK not read here, else 0. */
static int start(Replay *r, PyObject *index, PyObject *tiles, int count, int *gold) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(tiles);
    PyObject **items = PySequence_Fast_ITEMS(tiles);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *cell = slot_get(items[i], s_cell);
        if (cell == NULL) {
            PyErr_Clear();
            return ASK;
        }
        int c = cell_at(&r->rows, index, cell, count);
        Py_DECREF(cell);
        if (c == ASK) return ASK;
        if (c < 0 || r->held[c]) return -1;
        PyObject *symbol = slot_get(items[i], s_symbol);
        if (symbol == NULL) {
            PyErr_Clear();
            return ASK;
        }
        int ok = PyUnicode_CheckExact(symbol) && PyUnicode_GET_LENGTH(symbol) == 1;
        int s = ok ? (int)PyUnicode_READ_CHAR(symbol, 0) : 0;
        Py_DECREF(symbol);
        if (!ok) return ASK;
        r->held[c] = 1;
        r->sym[c] = s;
        r->left++;
        if (is_metal(s)) {
            r->metals[s - '0']++;
            if (s - '0' > *gold) *gold = s - '0';
        }
    }
    return 0;
}

/* The cells of one move as indexes into ids: their number (1, 2 or 5, each held, no two alike), 0 when they are
 * no move (rules._held and the pair's reading in first_bad_move), ASK when not read here. */
static int move_cells(const Replay *r, PyObject *index, PyObject *cells, int count, int *ids) {
    Py_ssize_t n = PyTuple_GET_SIZE(cells);
    if (n == 2) { /* both looked up first, as rules.first_bad_move does */
        int a = cell_at(&r->rows, index, PyTuple_GET_ITEM(cells, 0), count);
        int b = cell_at(&r->rows, index, PyTuple_GET_ITEM(cells, 1), count);
        if (a == ASK || b == ASK) return ASK;
        if (a < 0 || b < 0 || a == b || !r->held[a] || !r->held[b]) return 0;
        ids[0] = a;
        ids[1] = b;
        return 2;
    }
    for (Py_ssize_t i = 0; i < n; i++) { /* in order, the first that is no held cell ends it (rules._held) */
        int c = cell_at(&r->rows, index, PyTuple_GET_ITEM(cells, i), count);
        if (c == ASK) return ASK;
        if (c < 0 || !r->held[c]) return 0;
        if (i < 5) ids[i] = c;
    }
    if (n != 1 && n != 5) return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = 0; j < i; j++)
            if (ids[i] == ids[j]) return 0;
    return (int)n;
}

/* Whether tiles of these symbols may leave together now (rules._leave_together and the pairs' look-up). */
static int leave_together(const Replay *r, const int *ids, int n, int current, int gold) {
    if (n == 2) return pairs(r->sym[ids[0]], r->sym[ids[1]], current, gold);
    if (n == 1) return gold >= 0 && r->sym[ids[0]] - '0' == gold && is_metal(r->sym[ids[0]]) && current == gold;
    /* five: one each of air, earth, fire, water and quintessence */
    int seen = 0;
    for (int i = 0; i < 5; i++) {
        int s = r->sym[ids[i]];
        int bit = s == 'a' ? 1 : s == 'e' ? 2 : s == 'f' ? 4 : s == 'w' ? 8 : s == 'x' ? 16 : 0;
        if (!bit || seen & bit) return 0;
        seen |= bit;
    }
    return seen == 31;
}

static long replay(Replay *r, PyObject *index, PyObject *tiles, PyObject *moves, int count) {
    int gold = -1;
    int begun = start(r, index, tiles, count, &gold);
    if (begun != 0) return begun;
    Py_ssize_t total = PySequence_Fast_GET_SIZE(moves);
    PyObject **items = PySequence_Fast_ITEMS(moves);
    for (Py_ssize_t k = 0; k < total; k++) {
        long number = (long)k + 1;
        PyObject *cells = slot_get(items[k], s_cells);
        if (cells == NULL) {
            PyErr_Clear();
            return ASK;
        }
        int ids[5];
        int n = PyTuple_CheckExact(cells) ? move_cells(r, index, cells, count, ids) : ASK;
        Py_DECREF(cells);
        if (n == ASK) return ASK;
        if (n == 0) return number;
        int current = -1; /* the lowest metal left */
        for (int d = 1; d <= 9; d++)
            if (r->metals[d]) {
                current = d;
                break;
            }
        if (!leave_together(r, ids, n, current, gold)) return number;
        for (int i = 0; i < n; i++) /* every tile free before any leaves */
            if (!is_free(r, ids[i])) return number;
        for (int i = 0; i < n; i++) {
            r->held[ids[i]] = 0;
            r->left--;
            if (is_metal(r->sym[ids[i]])) r->metals[r->sym[ids[i]] - '0']--;
        }
    }
    return r->left ? 0 : -3; /* -3: cleared (None) */
}

static PyObject *first_bad_move(PyObject *self, PyObject *args) {
    PyObject *index, *tiles_in, *moves_in;
    Py_buffer ring;
    if (!PyArg_ParseTuple(args, "O!y*OO", &PyDict_Type, &index, &ring, &tiles_in, &moves_in)) return NULL;
    long found = ASK;
    Py_ssize_t count = ring.len / (Py_ssize_t)(6 * sizeof(int));
    PyObject *tiles = NULL, *moves = NULL;
    int plain = (PyList_CheckExact(tiles_in) || PyTuple_CheckExact(tiles_in)) &&
                (PyList_CheckExact(moves_in) || PyTuple_CheckExact(moves_in)); /* never an iterator used up */
    if (plain && ring.len % (Py_ssize_t)(6 * sizeof(int)) == 0 && count <= MAXCELLS) {
        tiles = PySequence_Fast(tiles_in, "tiles");
        moves = tiles ? PySequence_Fast(moves_in, "moves") : NULL;
        if (moves != NULL) {
            Replay *r = PyMem_Malloc(sizeof(Replay)); /* some 5 KB: only what is read before it is written is cleared */
            if (r != NULL) {
                memset(r->held, 0, (size_t)count);
                memset(r->metals, 0, sizeof(r->metals));
                r->left = 0;
                r->ring = (const int *)ring.buf;
                rows_of(&r->rows, (int)count);
                found = replay(r, index, tiles, moves, (int)count);
                PyMem_Free(r);
            }
        }
        PyErr_Clear();
    }
    Py_XDECREF(tiles);
    Py_XDECREF(moves);
    PyBuffer_Release(&ring);
    if (found == -3) Py_RETURN_NONE;
    return PyLong_FromLong(found);
}

/* plain_moves(moves, Move) -> bool: whether moves is an exact tuple of exact Moves, each of whose cells is an
 * exact tuple of one, two or five cells, each an exact tuple of two exact ints (runners/checking/intake.py
 * _plain_moves: such moves cannot change, so the answer's own are kept). */
static PyObject *plain_moves(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *moves, *move_type;
    if (!PyArg_ParseTuple(args, "OO!", &moves, &PyType_Type, &move_type)) return NULL;
    if (!PyTuple_CheckExact(moves)) Py_RETURN_FALSE;
    Py_ssize_t n = PyTuple_GET_SIZE(moves);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *move = PyTuple_GET_ITEM(moves, k);
        if ((PyObject *)Py_TYPE(move) != move_type) Py_RETURN_FALSE;
        PyObject *cells = slot_get(move, s_cells);
        if (cells == NULL) {
            PyErr_Clear();
            Py_RETURN_FALSE;
        }
        int plain = PyTuple_CheckExact(cells);
        Py_ssize_t m = plain ? PyTuple_GET_SIZE(cells) : 0;
        plain = plain && (m == 1 || m == 2 || m == 5);
        for (Py_ssize_t i = 0; plain && i < m; i++) {
            PyObject *cell = PyTuple_GET_ITEM(cells, i);
            plain = PyTuple_CheckExact(cell) && PyTuple_GET_SIZE(cell) == 2 &&
                    PyLong_CheckExact(PyTuple_GET_ITEM(cell, 0)) && PyLong_CheckExact(PyTuple_GET_ITEM(cell, 1));
        }
        Py_DECREF(cells);
        if (!plain) Py_RETURN_FALSE;
    }
    Py_RETURN_TRUE;
}

/* rules._counts_pair_up read in one pass over the tiles: True when the counts pair up and no quintessence is
 * there, False when the test itself must be asked (quintessence, a symbol of no kind), None for a board not
 * read here (a symbol that is no one-character string). */
static PyObject *counts_pair_up(PyObject *self, PyObject *tiles_in) {
    (void)self;
    PyObject *tiles = PySequence_Fast(tiles_in, "tiles");
    if (tiles == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(tiles);
    PyObject **items = PySequence_Fast_ITEMS(tiles);
    Py_ssize_t count[128] = {0};
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *symbol = slot_get(items[i], s_symbol);
        if (symbol == NULL) {
            Py_DECREF(tiles);
            return NULL;
        }
        int plain = PyUnicode_CheckExact(symbol) && PyUnicode_GET_LENGTH(symbol) == 1;
        Py_UCS4 s = plain ? PyUnicode_READ_CHAR(symbol, 0) : 0;
        Py_DECREF(symbol);
        if (!plain) {
            Py_DECREF(tiles);
            Py_RETURN_NONE;
        }
        if (s >= 128) { /* no kind of tile: the test itself names it */
            Py_DECREF(tiles);
            Py_RETURN_FALSE;
        }
        count[s]++;
    }
    Py_DECREF(tiles);
    Py_ssize_t metals = 0, odd = 0, known;
    for (int d = '1'; d <= '9'; d++) metals += count[d];
    for (const char *e = "aefw"; *e; e++) odd += count[(int)*e] & 1;
    known = count['a'] + count['e'] + count['f'] + count['w'] + count['s'] + count['v'] + count['m'] + count['q'] + metals;
    if (count['x'] || known != n) Py_RETURN_FALSE;
    Py_ssize_t salt = count['s'], quicksilver = count['q'];
    if (salt >= odd && !((salt - odd) & 1) && count['v'] == count['m'] && quicksilver == (metals > 1 ? metals - 1 : 0))
        Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* intake._statistics's common case in one pass: a copy of a dict whose keys are exact strs and whose values
 * are exact strs, bools, None, ints of 64 bits (-2**63 <= v < 2**63) or finite floats; None for anything else
 * (the caller reads it in Python, which refuses it or copies it through JSON). */
static PyObject *plain_statistics(PyObject *self, PyObject *value) {
    (void)self;
    if (!PyDict_CheckExact(value)) Py_RETURN_NONE;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(value, &pos, &k, &v)) {
        if (!PyUnicode_CheckExact(k)) Py_RETURN_NONE;
        if (PyUnicode_CheckExact(v) || v == Py_None || PyBool_Check(v)) continue;
        if (PyLong_CheckExact(v)) {
            int overflow = 0;
            (void)PyLong_AsLongLongAndOverflow(v, &overflow); /* an exact int: no error but overflow */
            if (overflow) Py_RETURN_NONE;
            continue;
        }
        if (PyFloat_CheckExact(v) && isfinite(PyFloat_AS_DOUBLE(v))) continue;
        Py_RETURN_NONE;
    }
    return PyDict_Copy(value);
}

static PyMethodDef methods[] = {
    {"plain_statistics", plain_statistics, METH_O, "A copy of plain statistics, or None (see runners/checking/intake.py)."},
    {"counts_pair_up", counts_pair_up, METH_O, "Whether a board's counts pair up (see models/rules.py)."},
    {"first_bad_move", first_bad_move, METH_VARARGS, "The first illegal move of a sequence (see models/rules.py)."},
    {"plain_moves", plain_moves, METH_VARARGS, "Whether every move is plain (see runners/checking/intake.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_replay", NULL, -1, methods};

PyMODINIT_FUNC PyInit__replay(void) {
    s_cell = PyUnicode_InternFromString("cell");
    s_symbol = PyUnicode_InternFromString("symbol");
    s_cells = PyUnicode_InternFromString("cells");
    if (!s_cell || !s_symbol || !s_cells) return NULL;
    return PyModule_Create(&module);
}
