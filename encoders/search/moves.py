"""The search's move generation: every candidate move of a state, safe moves first, in the chosen order."""

from __future__ import annotations

from sigmar.encoders.search.state import EngineState
from sigmar.models.bits import single_bits, tile_ids


class MoveGeneration(EngineState):
    """Candidate moves as removal masks, and the move orders."""

    def moves(self, occ: int, free: int) -> list[int]:
        """Candidate moves as removal masks, safe moves alone when one exists, in search order."""
        cur = self.current_metal(occ)
        if cur and cur == self.gold_bit and free & cur:
            self.safe_moves += 1
            return [cur]  # safe: gold is the last metal and removing it disables nothing
        # Quintessence left (the variant) takes one tile of every element first: what pairs of an
        # element is its count less the quintessence, for the parity pruning and the safe pairs.
        fives = (occ & self.x_mask).bit_count()
        odd = 0
        for em in self.el_masks_all:
            left = (occ & em).bit_count() - fives
            if left < 0:
                return []  # an element too few for the quintessence left: dead by the counts
            odd += left & 1
        salt_free = free & self.salt_mask
        salts = single_bits(salt_free) if salt_free else []
        spare = (occ & self.salt_mask).bit_count() - odd  # even; salt beyond what the odd elements need
        out: list[int] = []
        safe = (
            self._element_moves(occ, free, fives, salts, spare, out)
            or self._salt_moves(occ, salts, spare, out)
            or self._vitae_mors_moves(occ, free, out)
            or self._metal_moves(occ, free, cur, out)
        )
        if safe:
            self.safe_moves += 1
            return [safe]
        if len(out) > 1 and self.order != "none":
            out = self._ordered(out, occ, free, cur.bit_length() - 1)
        if fives and free & self.x_mask:
            # Quintessence moves first: on 400 public variant boards this halved the p99 of the nodes
            # (8,942 to 4,205; docs/quintessence.md).  A random order by the sum of tile weights had put
            # these five-tile moves last.
            five = self._quintessence_moves(occ, free)
            if len(five) > 1 and self.order != "none":
                five = self._ordered(five, occ, free, cur.bit_length() - 1)
            out = five + out
        return out

    def _element_moves(self, occ: int, free: int, fives: int, salts: list[int], spare: int, out: list[int]) -> int:
        """Element pairs and salt-element pairs into ``out``; a safe element pair instead, when there is one."""
        safe = self.safe and not fives and not occ & self.salt_mask
        for em in self.el_masks:
            ef = free & em
            if not ef:
                continue
            fl = single_bits(ef) if ef & (ef - 1) else [ef]
            k = len(fl)
            # Safe (no salt, every tile of the element free): any solution can pair this pair first,
            # moving the later partner's removal earlier.  Not with quintessence left: a tile it takes
            # may have to stay until then, so the reordering fails (tests/test_quintessence.py found one).
            if safe and k > 1 and ef == occ & em:
                return fl[0] | fl[1]
            for x in range(k - 1):
                bx = fl[x]
                for y in range(x + 1, k):
                    out.append(bx | fl[y])
            if not salts:
                continue
            if spare < 2 and not ((occ & em).bit_count() - fives) & 1:
                self.pruned_counts += 1  # salt on an even element would starve an odd one
                continue
            for bs in salts:
                for be in fl:
                    out.append(bs | be)
        return 0

    def _salt_moves(self, occ: int, salts: list[int], spare: int, out: list[int]) -> int:
        """Salt pairs into ``out`` when salt is to spare; the safe one when no element is left and all salt is free."""
        if len(salts) < 2 or spare < 2:
            return 0
        if self.safe and not occ & self.element_mask and len(salts) == (occ & self.salt_mask).bit_count():
            return salts[0] | salts[1]
        for x in range(len(salts) - 1):
            bx = salts[x]
            for y in range(x + 1, len(salts)):
                out.append(bx | salts[y])
        return 0

    def _vitae_mors_moves(self, occ: int, free: int, out: list[int]) -> int:
        """Vitae-mors pairs into ``out``; the safe one when every vitae and mors left is free."""
        vf = free & self.vitae_mask
        mf = free & self.mors_mask
        if not (vf and mf):
            return 0
        vm_occ = occ & self.vm_mask
        if self.safe and free & vm_occ == vm_occ:
            return (vf & -vf) | (mf & -mf)
        ml = single_bits(mf)
        for bv in single_bits(vf):
            for bm in ml:
                out.append(bv | bm)
        return 0

    def _metal_moves(self, occ: int, free: int, cur: int, out: list[int]) -> int:
        """Quicksilver with the current metal into ``out``; the safe one for the last quicksilver."""
        if not (cur and free & cur):
            return 0
        qf = free & self.q_mask
        if not qf:
            return 0
        if self.safe and (occ & self.q_mask) == qf and qf & (qf - 1) == 0:
            return cur | qf  # safe: the last quicksilver with the last non-gold metal
        for bq in single_bits(qf):
            out.append(cur | bq)
        return 0

    def _quintessence_moves(self, occ: int, free: int) -> list[int]:
        """Every free quintessence with one free tile of each element (the variant of docs/formats.md#the-rules)."""
        moves = [x_bit for x_bit in (1 << t for t in tile_ids(free & self.x_mask))]
        for em in self.el_masks_all:
            choices = [1 << t for t in tile_ids(free & em)]
            moves = [m | c for m in moves for c in choices]
        return moves

    def _ordered(self, out: list[int], occ: int, free: int, cur: int) -> list[int]:
        order = self.order
        if order == "random":
            # Moves recur in many states: cache each move's weight for this restart's keys.
            weights = self._weights
            key = self.key_random
            for r in out:
                if r not in weights:
                    w = 0
                    rr = r
                    while rr:
                        low = rr & -rr
                        w += key[low.bit_length() - 1]
                        rr ^= low
                    weights[r] = w
            out.sort(key=weights.__getitem__)
            return out
        if order == "centre":
            key = self.key_centre
        elif order == "neighbours":
            key = self.key_nbrs
        elif order == "metal":
            key = self.key_metal[self.metal_tiles.index(cur)] if cur >= 0 else self.key_centre
        elif order == "freed":
            return sorted(out, key=lambda r: -self._freed(r, occ, free))
        else:  # mixed: metal moves first, then nearest the current metal, then the centre
            km = self.key_metal[self.metal_tiles.index(cur)] if cur >= 0 else self.key_centre
            kc = self.key_centre
            mm = self.metal_mask

            def mixed(r: int) -> int:
                if r & mm:
                    return -1000
                s = 0
                while r:
                    low = r & -r
                    i = low.bit_length() - 1
                    s += 4 * km[i] + kc[i]
                    r ^= low
                return s

            return sorted(out, key=mixed)

        def static(r: int) -> int:
            s = 0
            while r:
                low = r & -r
                s += key[low.bit_length() - 1]
                r ^= low
            return s

        return sorted(out, key=static)

    def _freed(self, r: int, occ: int, free: int) -> int:
        child = occ & ~r
        cand = 0
        for i in tile_ids(r):
            cand |= self.nbr[i]
        cand &= child & ~free
        return sum(1 for i in tile_ids(cand) if self.is_free(i, child))
