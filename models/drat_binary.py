"""Binary DRAT proofs, read into the text form the DRUP checker takes (docs/formats.md#drup-proofs).

CaDiCaL and Kissat write their proofs in binary unless told otherwise
(``--no-binary``): each step is a byte ``a`` (a lemma) or ``d`` (a deletion),
its literals as variable-length numbers (7 bits a byte, low bits first, the
top bit set on every byte but the last; literal ``l`` is written ``2l`` and
``-l`` is ``2l + 1``), and a byte 0 at its end.  A text proof never holds the
byte 0, so one that does is binary.

Reading is not trusting: the text that comes out is checked lemma by lemma
like any other proof, so a bug here can only make a valid proof fail.
"""

from __future__ import annotations

import io
from typing import BinaryIO

from sigmar.models.errors import SigmarError

LEMMA, DELETION = 0x61, 0x64  # "a", "d"
SNIFF = 1 << 16  # the bytes looked at to tell binary from text
CHUNK = 1 << 16  # the bytes read at a time: a conversion holds some 150 times this (10 MB), beside one step
LONGEST_STEP = 10_000_000  # bytes of one step at most, as a text proof's line (docs/formats.md, 'Limits')


class DratError(SigmarError, ValueError):
    """A binary proof that does not parse."""


def is_binary(head: bytes) -> bool:
    """Whether a proof that starts with ``head`` is binary DRAT (text never holds the byte 0)."""
    return b"\x00" in head[:SNIFF]


def to_text(data: bytes) -> bytes:
    """The text DRUP of a binary DRAT proof: ``1 -2 0`` a lemma, ``d 1 -2 0`` a deletion, a line each."""
    out = io.BytesIO()
    convert(io.BytesIO(data), out)
    return out.getvalue()


def convert(source: BinaryIO, sink: BinaryIO, chunk: int = CHUNK) -> int:
    """A binary DRAT proof read from ``source`` a chunk at a time, written to ``sink`` as text DRUP; the steps.

    Memory is a chunk and the step it cuts (at most :data:`LONGEST_STEP` bytes), whatever the
    proof's size: a proof of hundreds of MB is turned into text on disk, then mapped as any
    text proof is.
    """
    pending, number = b"", 0
    while block := source.read(chunk):
        data = pending + block
        cut = data.rfind(b"\x00") + 1
        whole, pending = data[:cut], data[cut:]  # the step the chunk cut waits for the next chunk
        if len(pending) > LONGEST_STEP:
            raise DratError(f"step {number + whole.count(0) + 1}: longer than {LONGEST_STEP:,} bytes")
        if whole:
            text, steps = _text(whole, number)
            sink.write(text)
            number += steps
    if pending:
        raise DratError("the last step is not ended by a 0 byte (a proof cut short?)")
    return number


def _text(whole: bytes, number: int) -> tuple[bytes, int]:
    """Whole steps (``whole`` ends with a 0 byte) as text lines, decoded a chunk at a time with numpy; a chunk
    with any fault is read again a step at a time, which names the step and the fault."""
    import numpy as np

    data = np.frombuffer(whole, dtype=np.uint8)
    ends = np.flatnonzero(data == 0)
    starts = np.concatenate(([0], ends[:-1] + 1))
    heads = data[starts]
    body = np.ones(len(data), dtype=bool)
    body[starts] = False
    body[ends] = False
    where = np.flatnonzero(body)
    found = data[where]
    last = (found & 0x80) == 0  # the last byte of a literal
    before = ends - 1
    open_at_end = (before > starts) & ((data[before] & 0x80) != 0)
    if not np.all((heads == LEMMA) | (heads == DELETION)) or np.any(open_at_end):
        return _slowly(whole, number)
    firsts = np.flatnonzero(np.concatenate(([True], last[:-1]))) if len(found) else np.zeros(0, dtype=np.int64)
    lengths = np.diff(np.append(firsts, len(found)))
    if len(lengths) and lengths.max() > 9:  # a literal beyond 63 bits
        return _slowly(whole, number)
    shift = (np.arange(len(found)) - np.repeat(firsts, lengths)) * 7
    values = (
        np.add.reduceat((found & 0x7F).astype(np.uint64) << shift.astype(np.uint64), firsts) if len(found) else found
    )
    if np.any(values < 2):
        return _slowly(whole, number)
    literals = (values >> 1).astype(np.int64)
    literals[(values & 1) == 1] *= -1
    # Each literal, then "0\n" after each step, and "d " before each deletion: every token put in its place at once.
    step_of = np.searchsorted(ends, where[firsts])
    per_step = np.bincount(step_of, minlength=len(ends))
    deletions = np.cumsum(heads == DELETION)  # the deletion prefixes up to and including each step
    through = np.cumsum(per_step)  # the literals up to and including each step
    steps = np.arange(len(ends))
    tokens = np.empty(int(through[-1]) + 2 * len(ends), dtype=object)
    tokens[np.arange(len(literals)) + step_of + deletions[step_of]] = [f"{x} " for x in literals.tolist()]
    tokens[through + steps + deletions] = "0\n"
    deleting = np.flatnonzero(heads == DELETION)
    tokens[through[deleting] - per_step[deleting] + deleting + deletions[deleting] - 1] = "d "
    used = int(through[-1]) + len(ends) + int(deletions[-1])
    return "".join(tokens[:used].tolist()).encode(), len(ends)


def _slowly(whole: bytes, number: int) -> tuple[bytes, int]:
    steps = whole.split(b"\x00")[:-1]
    return b"".join(_line(step, number + i) + b"\n" for i, step in enumerate(steps, start=1)), len(steps)


def _line(step: bytes, number: int) -> bytes:
    if not step or step[0] not in (LEMMA, DELETION):
        found = f"byte {step[0]:#04x}" if step else "a 0 byte"
        raise DratError(f"step {number}: {found} where 'a' (a lemma) or 'd' (a deletion) was expected")
    prefix = b"d " if step[0] == DELETION else b""
    return prefix + b" ".join(b"%d" % lit for lit in [*_literals(step, number), 0])


def _literals(step: bytes, number: int) -> list[int]:
    literals = []
    value = shift = 0
    for byte in step[1:]:
        value |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
            continue
        if value < 2:
            raise DratError(f"step {number}: a literal of variable 0")
        literals.append(-(value >> 1) if value & 1 else value >> 1)
        value = shift = 0
    if shift:
        raise DratError(f"step {number}: a literal cut short")
    return literals
