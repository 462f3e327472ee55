"""A CI check of map submissions: the gameplay checks and a rules file (size, required tiles,
license), one line per finding, exit 1 on errors.

    python ci_check.py RULES.toml MAP...
"""

import argparse
import sys

import twcodec


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules")
    parser.add_argument("maps", nargs="+")
    args = parser.parse_args()

    errors = 0
    for path in args.maps:
        try:
            findings = twcodec.Map.load(path).check(ddnet=True, rules=args.rules)
        except twcodec.Error as error:
            print(f"{path}: error: {error}")
            errors += 1
            continue
        for f in findings:
            where = f" {f['layer']['kind']} layer #{f['layer']['index']}" if "layer" in f else ""
            print(f"{path}: {f['severity']}:{where} {f['message']} [{f['check']}]")
            errors += f["severity"] == "error"
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
