# SPDX-License-Identifier: MIT
"""The data tools' entry point for plots/plot and bench/vm, run as a
script (above every module it calls, so none of them imports it back):
  mbtool.py plot-check DIR TABLE:SCRIPT[,SCRIPT...] ...   (mbplotcheck.py)
  mbtool.py vm-aggregate WHAT OUT SMPS ISOLATE KERNEL_NAME BZIMAGE
  mbtool.py vm-ab OUT CSV_NAME KERNEL...                   (mbassemble.py)
  mbtool.py vm-semantics OUT GUEST...                      (vmsemantics.py)
  mbtool.py title DIR                                      (mbresults.py)
"""
import os
import sys

# The other modules of the analysis are beside this file (python3 -I, as
# plots/plot runs it, leaves that off the path). Nothing is written into
# the install tree: no bytecode cache of them.
sys.dont_write_bytecode = True
if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
from mbguard import EnvError  # noqa: E402


def main(argv):
    if argv and argv[0] == "plot-check":
        from mbplotcheck import plot_check
        return plot_check(argv[1:])
    if argv and argv[0] in ("vm-aggregate", "vm-ab", "vm-semantics"):
        from mbassemble import vm_ab, vm_aggregate
        from vmsemantics import vm_semantics
        try:
            {"vm-aggregate": vm_aggregate, "vm-ab": vm_ab, "vm-semantics": vm_semantics}[argv[0]](argv[1:])
        except (OSError, ValueError, KeyError, IndexError, EnvError) as e:
            print(f"vm-sweep: cannot aggregate the guests' results: {e}", file=sys.stderr)
            return 1
        return 0
    import argparse
    from mbresults import title
    ap = argparse.ArgumentParser(prog="mbtool.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("title", help="print the figures' title for a results folder")
    t.add_argument("folder")
    args = ap.parse_args(argv)
    print(title(args.folder))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
