"""A program that tries to reach the network: a graded program has none."""
import socket

try:
    socket.create_connection(("1.1.1.1", 80), timeout=1)
    print("connected")
except OSError as err:
    print("no network:", err.strerror)
