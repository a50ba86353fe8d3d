/* The search's per-board set-up, compiled (encoders/search/state.py EngineState._cell_masks).
 *
 * Why: the tables of a side (its cells' neighbours and windows) are made once, but the masks of a board
 * (where each symbol is, each tile's windows, neighbours held and partners, the metals' chain) are made
 * for every board of a batch: in Python some 50 us for a side-6 board, a tenth of what its search
 * costs (issue 48: a board should cost what its solving costs).  The same tables as the Python
 * set-up, in one pass over the tiles (tests/test_search.py holds them equal); a board it does not read
 * (a tile off its side, a symbol that is no one-character string) is left to the Python set-up.
 *
 *   masks(index, tiles, ring, windows, fill, bias) -> tuple | None
 *
 * index: the side's cells to their index; ring: per cell its six ring neighbours' indexes as native
 * int32s (off the board: -1); windows: per cell a list of 64 entries, a cell's minimal windows per
 * pattern of ring neighbours holding a tile (None until fill(c, pattern) makes it); bias: the weight of
 * a neighbour in the restarts' random order.  The tuple: (positions, sym, mask, full, metal_tiles,
 * windows, key_nbrs, key_bias, partners, lower, symbol_masks), as _cell_masks sets them; symbol_masks is
 * the tuple of what EngineState._symbol_masks reads off mask and the metals (SYMBOL_MASKS there, in order:
 * in Python some 10 us a board right after a search, issue 48).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#define MAXCELLS 1024
#define WORDS (MAXCELLS / 64)
#define SYMBOLS 128 /* characters read as symbols */
#define KINDS 24    /* different symbols a board may hold (the game has 17) */

typedef struct {
    uint64_t w[WORDS];
} Bits;

static PyObject *s_cell, *s_symbol;

#include "../../models/_slot_get.h"

static void set_bit(Bits *b, int c) { b->w[c >> 6] |= (uint64_t)1 << (c & 63); }
static int has_bit(const Bits *b, int c) { return (int)(b->w[c >> 6] >> (c & 63) & 1); }
static void or_into(Bits *a, const Bits *b, int words) {
    for (int i = 0; i < words; i++) a->w[i] |= b->w[i];
}

static PyObject *as_int(const Bits *b, int words) {
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000 && PYLONG_BITS_IN_DIGIT == 30
    /* Python 3.11's ints, written digit by digit: _PyLong_FromByteArray reads a byte at a time, some 250
     * instructions an int of side 6, a sixth of the set-up (issue 48); later versions lay ints out otherwise */
    int top = words;
    while (top > 0 && b->w[top - 1] == 0) top--;
    if (top <= 1) return PyLong_FromUnsignedLongLong(top ? b->w[0] : 0);
    int bits = 64 * top - __builtin_clzll(b->w[top - 1]);
    Py_ssize_t digits = (bits + PyLong_SHIFT - 1) / PyLong_SHIFT;
    PyLongObject *v = _PyLong_New(digits);
    if (v == NULL) return NULL;
    for (Py_ssize_t i = 0; i < digits; i++) {
        int bit = (int)i * PyLong_SHIFT, word = bit >> 6, shift = bit & 63;
        uint64_t x = b->w[word] >> shift;
        if (shift > 64 - PyLong_SHIFT && word + 1 < top) x |= b->w[word + 1] << (64 - shift);
        v->ob_digit[i] = (digit)(x & PyLong_MASK);
    }
    return (PyObject *)v;
#else
    return _PyLong_FromByteArray((const unsigned char *)b->w, (size_t)words * 8, 1, 0);
#endif
}

static int is_metal(int s) { return s >= '1' && s <= '9'; }
static int is_element(int s) { return s == 'a' || s == 'e' || s == 'f' || s == 'w'; }

typedef struct {
    int count, words, n;
    int pos[MAXCELLS];     /* per tile, its cell */
    int sym[MAXCELLS];     /* per cell, its symbol's character (0: no tile) */
    int slot[SYMBOLS];     /* per symbol character, 1 + its place in the lists below (0: not on the board) */
    int kinds;             /* symbols on the board, in the order they first come: */
    int chars[KINDS];      /* the character */
    PyObject *obj[KINDS];  /* the string of the first tile of it (a reference held) */
    Bits of[KINDS + 1];    /* its cells (the last: none, for a symbol not on the board) */
    Bits partner[KINDS];   /* the cells its tiles could pair with */
    long nbrs[MAXCELLS];   /* per tile, minus its neighbours that hold a tile */
    long biased[MAXCELLS]; /* the same times the bias */
    Bits full;
} Board;

/* The cells of a symbol (none when not on the board). */
static const Bits *cells_of(const Board *b, int s) { return &b->of[b->slot[s] ? b->slot[s] - 1 : KINDS]; }

/* The tiles read: 1, or 0 for a board left to the Python set-up, -1 on an error. */
static int read_tiles(Board *b, PyObject *index, PyObject *tiles) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(tiles);
    PyObject **items = PySequence_Fast_ITEMS(tiles);
    if (n > MAXCELLS) return 0;
    b->n = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *cell = slot_get(items[i], s_cell);
        if (cell == NULL) return -1;
        PyObject *found = PyDict_GetItemWithError(index, cell); /* borrowed */
        Py_DECREF(cell);
        if (found == NULL) return PyErr_Occurred() ? -1 : 0; /* off the side */
        long c = PyLong_AsLong(found);
        if (c == -1 && PyErr_Occurred()) return -1;
        if (c < 0 || c >= b->count) return 0;
        PyObject *symbol = slot_get(items[i], s_symbol);
        if (symbol == NULL) return -1;
        int plain = PyUnicode_CheckExact(symbol) && PyUnicode_GET_LENGTH(symbol) == 1;
        Py_UCS4 s = plain ? PyUnicode_READ_CHAR(symbol, 0) : 0;
        if (!plain || s == 0 || s >= SYMBOLS || (!b->slot[s] && b->kinds == KINDS)) {
            Py_DECREF(symbol);
            return 0;
        }
        if (!b->slot[s]) {
            b->chars[b->kinds] = (int)s;
            b->obj[b->kinds] = symbol; /* released by the caller */
            b->slot[s] = ++b->kinds;
        } else {
            Py_DECREF(symbol);
        }
        b->pos[i] = (int)c;
        b->sym[c] = (int)s;
        set_bit(&b->of[b->slot[s] - 1], (int)c);
        set_bit(&b->full, (int)c);
    }
    return 1;
}

/* Per symbol, the cells a tile of it could ever pair with (models/facts.py symbol_partners). */
static void partners_of(Board *b, int gold) {
    int words = b->words;
    Bits elements = {{0}}, metals = {{0}};
    for (const char *e = "aefw"; *e; e++) or_into(&elements, cells_of(b, *e), words);
    for (int d = '1'; d <= '9'; d++) or_into(&metals, cells_of(b, d), words);
    if (gold >= 0) metals.w[gold >> 6] &= ~((uint64_t)1 << (gold & 63));
    for (int k = 0; k < b->kinds; k++) {
        int s = b->chars[k];
        Bits *p = &b->partner[k];
        if (is_element(s)) {
            or_into(p, &b->of[k], words);
            or_into(p, cells_of(b, 's'), words);
            or_into(p, cells_of(b, 'x'), words);
        } else if (s == 'x') {
            or_into(p, &elements, words);
        } else if (s == 's') {
            or_into(p, &b->of[k], words);
            or_into(p, &elements, words);
        } else if (s == 'v') {
            or_into(p, cells_of(b, 'm'), words);
        } else if (s == 'm') {
            or_into(p, cells_of(b, 'v'), words);
        } else if (s == 'q') {
            or_into(p, &metals, words);
        } else if (is_metal(s)) {
            or_into(p, cells_of(b, 'q'), words);
        }
    }
}

/* A list of count ints, 0 where no tile is, values[c] on the cells given. */
static PyObject *per_cell(int count, const int *cells, int n, const long *values) {
    PyObject *zero = PyLong_FromLong(0), *out = zero ? PyList_New(count) : NULL;
    if (out == NULL) {
        Py_XDECREF(zero);
        return NULL;
    }
    for (int c = 0; c < count; c++) {
        Py_INCREF(zero);
        PyList_SET_ITEM(out, c, zero);
    }
    Py_DECREF(zero);
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(values[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SetItem(out, cells[i], v); /* steals v, drops the 0 */
    }
    return out;
}

/* A list of the cells of each element in "aefw" (all: also those not on the board, as 0), and their union. */
static PyObject *element_masks(const Board *b, int all, Bits *every) {
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (const char *e = "aefw"; *e; e++) {
        if (!all && !b->slot[(int)*e]) continue;
        or_into(every, cells_of(b, *e), b->words);
        PyObject *m = as_int(cells_of(b, *e), b->words);
        if (m == NULL || PyList_Append(out, m) < 0) {
            Py_XDECREF(m);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(m);
    }
    return out;
}

/* (metal_mask, q_mask, salt_mask, el_masks, el_masks_all, x_mask, vitae_mask, mors_mask, vm_mask, element_mask,
 * metal_bits, gold_bit): EngineState._symbol_masks's, from the board's cells and its metals' chain. */
static PyObject *symbol_masks(const Board *b, const int *metal_cells, int metals) {
    int words = b->words;
    Bits metal = {{0}}, vm = {{0}}, every = {{0}}, gold = {{0}};
    PyObject *metal_bits = PyList_New(metals), *result = NULL;
    PyObject *el = NULL, *el_all = NULL;
    if (metal_bits == NULL) return NULL;
    for (int i = 0; i < metals; i++) {
        Bits one = {{0}};
        set_bit(&one, metal_cells[i]);
        set_bit(&metal, metal_cells[i]);
        PyObject *v = as_int(&one, words);
        if (v == NULL) goto done;
        PyList_SET_ITEM(metal_bits, i, v);
    }
    if (metals) set_bit(&gold, metal_cells[metals - 1]);
    or_into(&vm, cells_of(b, 'v'), words);
    or_into(&vm, cells_of(b, 'm'), words);
    Bits unused = {{0}};
    el = element_masks(b, 0, &every);
    el_all = el ? element_masks(b, 1, &unused) : NULL;
    if (el_all == NULL) goto done;
    result = Py_BuildValue("(NNNOONNNNNON)", as_int(&metal, words), as_int(cells_of(b, 'q'), words),
                           as_int(cells_of(b, 's'), words), el, el_all, as_int(cells_of(b, 'x'), words),
                           as_int(cells_of(b, 'v'), words), as_int(cells_of(b, 'm'), words), as_int(&vm, words),
                           as_int(&every, words), metal_bits, as_int(&gold, words));
done:
    Py_XDECREF(el);
    Py_XDECREF(el_all);
    Py_DECREF(metal_bits);
    return result;
}

static PyObject *build(Board *b, const int *ring, PyObject *table, PyObject *fill, long bias) {
    int count = b->count, words = b->words, n = b->n;
    PyObject *positions = NULL, *sym = NULL, *mask = NULL, *full = NULL, *metal_tiles = NULL, *windows = NULL;
    PyObject *key_nbrs = NULL, *key_bias = NULL, *partners = NULL, *lower = NULL, *result = NULL, *symbols = NULL;
    int metal_cells[MAXCELLS], metals = 0;

    positions = PyList_New(n);
    sym = PyList_New(count);
    mask = PyDict_New();
    windows = PyList_New(count);
    metal_tiles = PyList_New(0);
    full = as_int(&b->full, words);
    if (!positions || !sym || !mask || !windows || !metal_tiles || !full) goto done;
    PyObject *empty = PyUnicode_New(0, 0), *none = PyTuple_New(0);
    if (!empty || !none) {
        Py_XDECREF(empty);
        Py_XDECREF(none);
        goto done;
    }
    for (int c = 0; c < count; c++) {
        PyObject *s = b->sym[c] ? b->obj[b->slot[b->sym[c]] - 1] : empty;
        Py_INCREF(s);
        PyList_SET_ITEM(sym, c, s);
        Py_INCREF(none);
        PyList_SET_ITEM(windows, c, none);
    }
    Py_DECREF(empty);
    Py_DECREF(none);
    for (int k = 0; k < b->kinds; k++) {
        PyObject *m = as_int(&b->of[k], words);
        if (m == NULL || PyDict_SetItem(mask, b->obj[k], m) < 0) {
            Py_XDECREF(m);
            goto done;
        }
        Py_DECREF(m);
    }
    /* The metals' chain: by digit, each digit's tiles by cell; gold the last. */
    for (int d = '1'; d <= '9'; d++)
        if (b->slot[d])
            for (int c = 0; c < count; c++)
                if (has_bit(&b->of[b->slot[d] - 1], c)) metal_cells[metals++] = c;
    for (int i = 0; i < metals; i++) {
        PyObject *v = PyLong_FromLong(metal_cells[i]);
        if (v == NULL || PyList_Append(metal_tiles, v) < 0) {
            Py_XDECREF(v);
            goto done;
        }
        Py_DECREF(v);
    }
    int gold = metals ? metal_cells[metals - 1] : -1;
    /* Per tile: its windows (by the pattern of its ring neighbours that hold a tile), neighbours held, partners. */
    for (int i = 0; i < n; i++) {
        int c = b->pos[i], pattern = 0;
        const int *near = ring + 6 * c;
        for (int k = 0; k < 6; k++)
            if (near[k] >= 0 && has_bit(&b->full, near[k])) pattern |= 1 << k;
        PyObject *row = PyList_GET_ITEM(table, c);
        PyObject *found = PyList_GET_ITEM(row, pattern);
        if (found == Py_None) {
            found = PyObject_CallFunction(fill, "ii", c, pattern); /* made and kept by the caller */
            if (found == NULL) goto done;
            Py_DECREF(found); /* the table holds it */
            found = PyList_GET_ITEM(row, pattern);
        }
        Py_INCREF(found);
        PyList_SetItem(windows, c, found);
        PyObject *at = PyLong_FromLong(c);
        if (at == NULL) goto done;
        PyList_SET_ITEM(positions, i, at);
        b->nbrs[i] = -__builtin_popcount((unsigned)pattern);
        b->biased[i] = bias * b->nbrs[i];
    }
    key_nbrs = per_cell(count, b->pos, n, b->nbrs);
    key_bias = key_nbrs ? per_cell(count, b->pos, n, b->biased) : NULL;
    if (!key_bias) goto done;
    partners_of(b, gold);
    partners = PyList_New(count);
    lower = PyList_New(count);
    PyObject *zero = PyLong_FromLong(0);
    if (!partners || !lower || !zero) {
        Py_XDECREF(zero);
        goto done;
    }
    for (int c = 0; c < count; c++) {
        Py_INCREF(zero);
        PyList_SET_ITEM(partners, c, zero);
        Py_INCREF(zero);
        PyList_SET_ITEM(lower, c, zero);
    }
    Py_DECREF(zero);
    for (int i = 0; i < n; i++) {
        int c = b->pos[i];
        if (c == gold) continue; /* gold pairs with nothing */
        Bits p = b->partner[b->slot[b->sym[c]] - 1];
        p.w[c >> 6] &= ~((uint64_t)1 << (c & 63));
        PyObject *v = as_int(&p, words);
        if (v == NULL) goto done;
        PyList_SetItem(partners, c, v);
    }
    Bits before = {{0}};
    for (int i = 0; i < metals; i++) {
        PyObject *v = as_int(&before, words);
        if (v == NULL) goto done;
        PyList_SetItem(lower, metal_cells[i], v);
        set_bit(&before, metal_cells[i]);
    }
    symbols = symbol_masks(b, metal_cells, metals);
    if (symbols == NULL) goto done;
    result = PyTuple_Pack(11, positions, sym, mask, full, metal_tiles, windows, key_nbrs, key_bias, partners, lower,
                          symbols);
done:
    Py_XDECREF(symbols);
    Py_XDECREF(positions);
    Py_XDECREF(sym);
    Py_XDECREF(mask);
    Py_XDECREF(full);
    Py_XDECREF(metal_tiles);
    Py_XDECREF(windows);
    Py_XDECREF(key_nbrs);
    Py_XDECREF(key_bias);
    Py_XDECREF(partners);
    Py_XDECREF(lower);
    return result;
}

static PyObject *masks(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *index, *tiles_in, *table, *fill;
    Py_buffer ring;
    long bias;
    if (!PyArg_ParseTuple(args, "O!Oy*O!Ol", &PyDict_Type, &index, &tiles_in, &ring, &PyList_Type, &table, &fill,
                          &bias))
        return NULL;
    Py_ssize_t count = ring.len / (Py_ssize_t)(6 * sizeof(int));
    PyObject *result = NULL;
    if (ring.len % (Py_ssize_t)(6 * sizeof(int)) != 0 || count > MAXCELLS || PyList_GET_SIZE(table) != count) {
        PyBuffer_Release(&ring);
        PyErr_SetString(PyExc_ValueError, "the side's tables do not match");
        return NULL;
    }
    for (Py_ssize_t c = 0; c < count; c++) {
        PyObject *row = PyList_GET_ITEM(table, c);
        if (!PyList_CheckExact(row) || PyList_GET_SIZE(row) != 64) {
            PyBuffer_Release(&ring);
            PyErr_SetString(PyExc_ValueError, "the side's windows table needs 64 entries a cell");
            return NULL;
        }
    }
    PyObject *tiles = PySequence_Fast(tiles_in, "tiles");
    Board *b = tiles ? PyMem_Malloc(sizeof(Board)) : NULL;
    if (b != NULL) { /* only what is read before it is written is cleared (the whole is some 30 KB) */
        memset(b->slot, 0, sizeof(b->slot));
        memset(b->sym, 0, (size_t)count * sizeof(int));
        memset(b->of, 0, sizeof(b->of));
        memset(b->partner, 0, sizeof(b->partner));
        memset(&b->full, 0, sizeof(b->full));
        b->kinds = 0;
        b->count = (int)count;
        b->words = (int)((count + 63) / 64);
        if (b->words == 0) b->words = 1;
        int read = read_tiles(b, index, tiles);
        if (read == 1)
            result = build(b, (const int *)ring.buf, table, fill, bias);
        else if (read == 0) {
            result = Py_None;
            Py_INCREF(result);
        }
        for (int k = 0; k < b->kinds; k++) Py_DECREF(b->obj[k]);
        PyMem_Free(b);
    } else if (tiles != NULL) {
        PyErr_NoMemory();
    }
    Py_XDECREF(tiles);
    PyBuffer_Release(&ring);
    return result;
}

static PyMethodDef methods[] = {
    {"masks", masks, METH_VARARGS, "One board's masks for the search (see encoders/search/state.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cellmasks", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cellmasks(void) {
    s_cell = PyUnicode_InternFromString("cell");
    s_symbol = PyUnicode_InternFromString("symbol");
    if (!s_cell || !s_symbol) return NULL;
    return PyModule_Create(&module);
}
