"""``creval data fetch oogiri``: Oogiri-GO from the Hugging Face hub, as plain files.

Downloads ``en.jsonl``, ``cn.jsonl``, ``jp.jsonl`` and ``images.zip`` of
``zhongshsh/CLoT-Oogiri-GO`` and unpacks the images into ``images/`` (by file name only, so
a crafted archive cannot write outside it). Afterwards run
``creval run oogiri --source FOLDER --lang en|zh|ja``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from creval.benchmarks.oogiri.data import IMAGE_SUFFIXES, LANG_FILES
from creval.benchmarks.openended.fetch import download
from creval.errors import CrevalError

HF_BASE_URL = "https://huggingface.co/datasets/zhongshsh/CLoT-Oogiri-GO/resolve/main"
IMAGES_ZIP = "images.zip"


def unpack_images(archive: Path, folder: Path) -> int:
    """Extract the image files of ``archive`` into ``folder`` by base name; returns the count."""
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    try:
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                name = Path(info.filename).name
                if info.is_dir() or not name.lower().endswith(IMAGE_SUFFIXES) or name.startswith("."):
                    continue
                (folder / name).write_bytes(zf.read(info))
                count += 1
    except zipfile.BadZipFile:
        raise CrevalError(f"{archive} is not a valid zip archive; delete it and fetch again.") from None
    return count


def fetch_oogiri(
    folder: str | Path, *, base_url: str = HF_BASE_URL, images: bool = True, timeout: float = 120.0
) -> Path:
    """Download Oogiri-GO into ``folder`` (created); returns it. Files already there are kept."""
    dest = Path(folder)
    dest.mkdir(parents=True, exist_ok=True)
    names = [*LANG_FILES.values(), *([IMAGES_ZIP] if images else [])]
    for name in names:
        if not (dest / name).is_file():
            download(f"{base_url.rstrip('/')}/{name}", dest / name, timeout=timeout)
    if images and not (dest / "images").is_dir():
        partial = dest / "images.part"  # renamed when complete: a broken unpack is redone
        unpack_images(dest / IMAGES_ZIP, partial)
        partial.replace(dest / "images")
    return dest
