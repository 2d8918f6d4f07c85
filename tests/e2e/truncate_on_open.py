#!/usr/bin/env python3
"""truncate_on_open.py FILE PRISTINE: the hostile owner of a mapped library.
Whenever another process opens FILE, wait a moment (the reader has mapped it
and is reading its symbols), cut FILE to one page, then put PRISTINE's bytes
back (same inode, so the mappings stay). Runs until killed; prints "armed"
once it watches, "cut" each time it cut FILE and "restored" once its bytes
are back (a process touching its mapping of FILE in between dies of SIGBUS:
the tests keep their workloads away from it then)."""
import ctypes
import os
import shutil
import struct
import sys
import time

IN_OPEN = 0x20
libc = ctypes.CDLL(None, use_errno=True)


def main(path, pristine):
    fd = libc.inotify_init()
    if fd < 0 or libc.inotify_add_watch(fd, path.encode(), IN_OPEN) < 0:
        sys.exit(f"inotify: {os.strerror(ctypes.get_errno())}")
    print("armed", flush=True)
    while True:
        buf, o, opened = os.read(fd, 4096), 0, False
        while o + 16 <= len(buf):
            _, mask, _, n = struct.unpack_from("iIII", buf, o)
            opened |= bool(mask & IN_OPEN)
            o += 16 + n
        if not opened:
            continue
        time.sleep(0.02)
        os.truncate(path, 4096)
        print("cut", flush=True)
        with open(pristine, "rb") as src, open(path, "r+b") as dst:
            shutil.copyfileobj(src, dst)
        print("restored", flush=True)
        # our own opens above queued events of their own: drop them
        time.sleep(0.05)
        os.set_blocking(fd, False)
        try:
            while os.read(fd, 4096):
                pass
        except BlockingIOError:
            pass
        os.set_blocking(fd, True)


main(sys.argv[1], sys.argv[2])
