/* slot_get: one attribute read, shared by the compiled set-up (encoders/search/_cellmasks.c) and the compiled
 * replay (models/_replay.c). It reads attributes only: the replay stays an independent check of the search's
 * moves (it shares no rule or geometry with the search, and this reads no rule). Include after <Python.h> and
 * <structmember.h>. */
#ifndef SIGMAR_SLOT_GET_H
#define SIGMAR_SLOT_GET_H

/* obj.name, as PyObject_GetAttr reads it (a new reference, or NULL with its exception), straight from the slot
 * when name is a __slots__ member of obj's type and the type reads attributes the generic way (a board's tiles, an
 * answer's moves): the generic read costs some 80 instructions, and each module reads a few hundred a board. */
static inline PyObject *slot_get(PyObject *obj, PyObject *name) {
    PyTypeObject *tp = Py_TYPE(obj);
    if (tp->tp_getattro == PyObject_GenericGetAttr) {
        PyObject *descr = _PyType_Lookup(tp, name); /* borrowed; the member descriptor, a data descriptor, wins */
        if (descr != NULL && Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
            PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
            if (member->type == T_OBJECT_EX && !(member->flags & READ_RESTRICTED)) {
                PyObject *value = *(PyObject **)((char *)obj + member->offset);
                if (value != NULL) {
                    Py_INCREF(value);
                    return value;
                }
            }
        }
    }
    return PyObject_GetAttr(obj, name);
}

#endif
