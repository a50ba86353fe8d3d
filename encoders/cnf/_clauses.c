/* A formula's clauses (a list of lists of ints) as the DRUP checker reads them and as DIMACS text.
 *
 * The runner makes both for every DRUP certificate it checks (runners/checking/fresh_formula.py), some of it
 * between two of the search's steps while the race's search still runs (issue 48): in Python the flat array
 * took 4-5 ms and the text 6-9 ms of a side-6 board's 20,000 clauses, here a fraction of a millisecond.
 * Both give what the Python they stand for gives (encoders/cnf/formula.py: flat_clauses, dimacs_clauses).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Every literal of ``clauses`` checked (a list of lists of ints that fit in 32 bits); the number of literals,
   or -1 with an exception set. */
static Py_ssize_t count_literals(PyObject *clauses) {
    if (!PyList_Check(clauses)) {
        PyErr_SetString(PyExc_TypeError, "clauses: a list of lists of ints");
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(clauses), total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *clause = PyList_GET_ITEM(clauses, i);
        if (!PyList_Check(clause)) {
            PyErr_SetString(PyExc_TypeError, "clauses: a list of lists of ints");
            return -1;
        }
        total += PyList_GET_SIZE(clause);
    }
    return total;
}

static int literal(PyObject *item, int32_t *out) {
    if (!PyLong_Check(item) || PyBool_Check(item)) { /* a bool is a constant the clause sink folds away */
        PyErr_SetString(PyExc_TypeError, "a literal that is not an int");
        return -1;
    }
    long value = PyLong_AsLong(item);
    if (value == -1 && PyErr_Occurred())
        return -1;
    if (value == 0 || value > INT32_MAX || value < -INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "a literal that is 0 or does not fit in 32 bits");
        return -1;
    }
    *out = (int32_t)value;
    return 0;
}

/* flat(clauses) -> bytes: native int32 literals, each clause ended by 0. */
static PyObject *flat(PyObject *self, PyObject *args) {
    PyObject *clauses;
    if (!PyArg_ParseTuple(args, "O", &clauses))
        return NULL;
    Py_ssize_t literals = count_literals(clauses);
    if (literals < 0)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(clauses);
    PyObject *out = PyBytes_FromStringAndSize(NULL, (literals + n) * (Py_ssize_t)sizeof(int32_t));
    if (out == NULL)
        return NULL;
    int32_t *at = (int32_t *)PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *clause = PyList_GET_ITEM(clauses, i);
        Py_ssize_t k = PyList_GET_SIZE(clause);
        for (Py_ssize_t j = 0; j < k; j++) {
            if (literal(PyList_GET_ITEM(clause, j), at++) < 0) {
                Py_DECREF(out);
                return NULL;
            }
        }
        *at++ = 0;
    }
    return out;
}

/* dimacs(clauses) -> str: one line a clause, its literals separated by spaces and ended by " 0" ("1 -2 0\n");
   an empty clause is " 0\n" (formula.dimacs_clauses). */
static PyObject *dimacs(PyObject *self, PyObject *args) {
    PyObject *clauses;
    if (!PyArg_ParseTuple(args, "O", &clauses))
        return NULL;
    Py_ssize_t literals = count_literals(clauses);
    if (literals < 0)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(clauses);
    /* A literal is at most 11 characters and a space; a clause's end " 0\n" 3. */
    size_t room = (size_t)literals * 12 + (size_t)n * 3 + 1;
    char *text = PyMem_Malloc(room);
    if (text == NULL)
        return PyErr_NoMemory();
    char *at = text;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *clause = PyList_GET_ITEM(clauses, i);
        Py_ssize_t k = PyList_GET_SIZE(clause);
        for (Py_ssize_t j = 0; j < k; j++) {
            int32_t value;
            if (literal(PyList_GET_ITEM(clause, j), &value) < 0) {
                PyMem_Free(text);
                return NULL;
            }
            if (j > 0)
                *at++ = ' ';
            uint32_t magnitude = value < 0 ? (uint32_t)(-(int64_t)value) : (uint32_t)value;
            if (value < 0)
                *at++ = '-';
            char digits[10];
            int d = 0;
            do {
                digits[d++] = (char)('0' + magnitude % 10);
                magnitude /= 10;
            } while (magnitude);
            while (d)
                *at++ = digits[--d];
        }
        memcpy(at, " 0\n", 3);
        at += 3;
    }
    PyObject *out = PyUnicode_DecodeASCII(text, at - text, NULL);
    PyMem_Free(text);
    return out;
}

static PyMethodDef methods[] = {
    {"flat", flat, METH_VARARGS,
     "flat(clauses) -> bytes\n\nclauses: a list of lists of non-zero ints; native int32 literals, each clause ended by 0."},
    {"dimacs", dimacs, METH_VARARGS,
     "dimacs(clauses) -> str\n\nThe clause lines of DIMACS ('1 -2 0'), each ended by a newline; an empty clause ' 0'."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_clauses", NULL, -1, methods};

PyMODINIT_FUNC PyInit__clauses(void) { return PyModule_Create(&module); }
