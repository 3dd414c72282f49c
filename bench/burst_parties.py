"""The parties a due-day burst reaches, for bench/burst.py: an SMTP relay that accepts every
message, and a Twilio stand-in (the Messages API's 201 and its 429) with a rate limit.

    python3 bench/burst_parties.py SMTP_PORT TWILIO_PORT STATUS_FILE [TWILIO_RATE]

Both run in one asyncio loop in this process (not the bench's, so that its polling does not
slow them down). Every half second, and at SIGTERM, STATUS_FILE gets the counts so far as JSON:
messages accepted per party, the wall-clock time of the first and the last, the relay's most
sessions at once, and the 429s the stand-in answered. The stand-in takes at most TWILIO_RATE
messages a second (100: above the WhatsApp sender's default pace of 80, so that 429s come only
when the server outruns its own pace) and answers the rest 429 with `Retry-After: 1`."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time

STATUS: dict[str, float] = {
    "emails": 0, "first_email_at": 0.0, "last_email_at": 0.0, "sessions": 0, "most_sessions": 0,
    "twilio": 0, "first_twilio_at": 0.0, "last_twilio_at": 0.0, "throttled": 0,
}


async def smtp_session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    STATUS["sessions"] += 1
    STATUS["most_sessions"] = max(STATUS["most_sessions"], STATUS["sessions"])
    try:
        writer.write(b"220 bench ESMTP\r\n")
        while True:
            line = await reader.readline()
            if not line:
                return
            command = line[:4].upper()
            if command in (b"EHLO", b"HELO"):
                writer.write(b"250-bench\r\n250-8BITMIME\r\n250 SIZE 10485760\r\n")
            elif command == b"DATA":
                writer.write(b"354 go on\r\n")
                await writer.drain()
                while (await reader.readline()) not in (b".\r\n", b".\n", b""):
                    pass
                now = time.time()
                STATUS["emails"] += 1
                STATUS["first_email_at"] = STATUS["first_email_at"] or now
                STATUS["last_email_at"] = now
                writer.write(b"250 2.0.0 queued\r\n")
            elif command == b"QUIT":
                writer.write(b"221 bye\r\n")
                await writer.drain()
                return
            else:
                writer.write(b"250 ok\r\n")
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        STATUS["sessions"] -= 1
        writer.close()


class Bucket:
    """At most `rate` requests in any second (a window per second)."""

    def __init__(self, rate: float) -> None:
        self.rate, self.second, self.used = rate, 0, 0

    def take(self) -> bool:
        second = int(time.monotonic())
        if second != self.second:
            self.second, self.used = second, 0
        self.used += 1
        return self.used <= self.rate


async def twilio_session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                         bucket: Bucket) -> None:
    """HTTP/1.1 with keep-alive: each POST of a message is a 201 with a sid, or a 429."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for header in head.split(b"\r\n")[1:]:
                name, _, value = header.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            if length:
                await reader.readexactly(length)
            if bucket.take():
                now = time.time()
                STATUS["twilio"] += 1
                STATUS["first_twilio_at"] = STATUS["first_twilio_at"] or now
                STATUS["last_twilio_at"] = now
                body = json.dumps({"sid": f"SM{int(STATUS['twilio']):032x}", "status": "queued"})
                status, extra = "201 Created", ""
            else:
                STATUS["throttled"] += 1
                body = json.dumps({"code": 20429, "message": "Too Many Requests", "status": 429})
                status, extra = "429 Too Many Requests", "Retry-After: 1\r\n"
            writer.write((f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n{extra}"
                          f"Content-Length: {len(body)}\r\n\r\n{body}").encode())
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def main() -> None:
    smtp_port, twilio_port, status_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    bucket = Bucket(float(sys.argv[4]) if len(sys.argv) > 4 else 100.0)
    relay = await asyncio.start_server(smtp_session, "127.0.0.1", smtp_port, backlog=256)
    twilio = await asyncio.start_server(lambda r, w: twilio_session(r, w, bucket), "127.0.0.1",
                                        twilio_port, backlog=256)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)

    def write_status() -> None:
        with open(status_file + ".tmp", "w") as f:
            json.dump(STATUS, f)
        import os
        os.replace(status_file + ".tmp", status_file)

    async with relay, twilio:
        while not stop.is_set():
            write_status()
            try:
                await asyncio.wait_for(stop.wait(), 0.5)
            except asyncio.TimeoutError:
                pass
    write_status()


if __name__ == "__main__":
    asyncio.run(main())
