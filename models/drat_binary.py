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

from sigmar.models.errors import SigmarError

LEMMA, DELETION = 0x61, 0x64  # "a", "d"
SNIFF = 1 << 16  # the bytes looked at to tell binary from text


class DratError(SigmarError, ValueError):
    """A binary proof that does not parse."""


def is_binary(head: bytes) -> bool:
    """Whether a proof that starts with ``head`` is binary DRAT (text never holds the byte 0)."""
    return b"\x00" in head[:SNIFF]


def to_text(data: bytes) -> bytes:
    """The text DRUP of a binary DRAT proof: ``1 -2 0`` a lemma, ``d 1 -2 0`` a deletion, a line each."""
    if data and data[-1] != 0:
        raise DratError("the last step is not ended by a 0 byte (a proof cut short?)")
    out: list[bytes] = []
    for number, step in enumerate(data.split(b"\x00")[:-1], start=1):
        if not step or step[0] not in (LEMMA, DELETION):
            found = f"byte {step[0]:#04x}" if step else "a 0 byte"
            raise DratError(f"step {number}: {found} where 'a' (a lemma) or 'd' (a deletion) was expected")
        literals = _literals(step, number)
        prefix = b"d " if step[0] == DELETION else b""
        out.append(prefix + b" ".join(b"%d" % lit for lit in [*literals, 0]))
    return b"\n".join(out) + b"\n" if out else b""


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
