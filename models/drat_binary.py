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
CHUNK = 1 << 20  # the bytes read at a time: what a conversion holds, beside one step
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
        steps = (pending + block).split(b"\x00")
        pending = steps.pop()  # the step the chunk cut (empty when it ended on a 0 byte)
        if len(pending) > LONGEST_STEP:
            raise DratError(f"step {number + len(steps) + 1}: longer than {LONGEST_STEP:,} bytes")
        lines = []
        for step in steps:
            number += 1
            lines.append(_line(step, number))
        if lines:
            sink.write(b"\n".join(lines) + b"\n")
    if pending:
        raise DratError("the last step is not ended by a 0 byte (a proof cut short?)")
    return number


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
