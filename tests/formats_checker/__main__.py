"""``python -m tests.formats_checker FILE CERT [--board NAME]``: the second checker by hand."""

import argparse
import sys

from tests.formats_checker.check import check

parser = argparse.ArgumentParser(prog="python -m tests.formats_checker", description=__doc__)
parser.add_argument("file")
parser.add_argument("certificate")
parser.add_argument("--board")
args = parser.parse_args()
sys.exit(check(args.file, args.certificate, args.board))
