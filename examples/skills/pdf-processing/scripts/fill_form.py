"""Fills a PDF form: fill_form.py INPUT.pdf FIELDS.json OUTPUT.pdf (an example script)."""
import json
import sys


def main(source: str, fields: str, target: str) -> None:
    with open(fields, encoding="utf-8") as f:
        values = json.load(f)
    print(f"would fill {len(values)} fields of {source} into {target}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
