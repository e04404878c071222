"""bleukit's demo app, as a Hugging Face Space runs it: the page is built by ``bleukit.app``.

``python app.py`` or ``make app`` serves it on 127.0.0.1:7860 (``GRADIO_SERVER_NAME`` and
``GRADIO_SERVER_PORT`` override). A Space installs only requirements.txt, not the package, so
bleukit is then imported from ``src/``.
"""

import sys
from pathlib import Path

try:
    import bleukit.app
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))
    import bleukit.app

demo = bleukit.app.build_demo()

if __name__ == "__main__":
    bleukit.app.launch(demo)
