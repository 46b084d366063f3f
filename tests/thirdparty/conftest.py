"""Make the wrappers of examples/thirdparty importable (the folder is an example, not a package)."""

import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "thirdparty"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
