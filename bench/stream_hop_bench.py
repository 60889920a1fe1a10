"""A loopback gRPC hop as a unary call each time, or as messages of one long-lived stream.

What the engine's hop to the lexicon and the gateway's to the engine cost per question, in CPU
of the caller's and of the server's process, when questions come one every few milliseconds
(as under load: each wakes gRPC's threads and the event loop anew) and back to back. Server
and client are grpc.aio on uvloop in two processes, 1 KiB questions echoed; the stream is
driven by lexio_common.streamed_calls as the services drive theirs.

Run: ``.venv/bin/python bench/stream_hop_bench.py`` (about a minute).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import resource
import time
from multiprocessing.queues import Queue
from typing import Any

import grpc
import uvloop
from benchlib import machine

from lexio.lexicon.v1 import lexicon_pb2
from lexio_common.streamed_calls import StreamedCalls, answer_stream

CALLS = 2_000
PACES_MS = (5.0, 1.0, 0.0)
SERVICE = "bench.Hop"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _serve(ports: Queue[Any], control: Queue[Any], cpu: Queue[Any]) -> None:
    async def unary(request: Any, context: Any) -> Any:
        return lexicon_pb2.CheckWordsResponse(unknown=request.words)

    async def streamed(calls: Any, context: Any) -> Any:
        async for result in answer_stream(
            calls, unary, lexicon_pb2.CheckWordsResult, service=SERVICE, method="Unary"
        ):
            yield result

    async def main() -> None:
        server = grpc.aio.server()
        handlers = {
            "Unary": grpc.unary_unary_rpc_method_handler(
                unary,
                request_deserializer=lexicon_pb2.CheckWordsRequest.FromString,
                response_serializer=lexicon_pb2.CheckWordsResponse.SerializeToString,
            ),
            "Stream": grpc.stream_stream_rpc_method_handler(
                streamed,
                request_deserializer=lexicon_pb2.CheckWordsCall.FromString,
                response_serializer=lexicon_pb2.CheckWordsResult.SerializeToString,
            ),
        }
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
        ports.put(server.add_insecure_port("127.0.0.1:0"))
        await server.start()
        loop = asyncio.get_running_loop()
        while await loop.run_in_executor(None, control.get) != "stop":
            started = _cpu()
            await loop.run_in_executor(None, control.get)
            cpu.put(_cpu() - started)
        await server.stop(0)

    uvloop.run(main())


async def _measure(port: int, control: Queue[Any], cpu: Queue[Any]) -> list[dict[str, Any]]:
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    unary = channel.unary_unary(
        f"/{SERVICE}/Unary",
        request_serializer=lexicon_pb2.CheckWordsRequest.SerializeToString,
        response_deserializer=lexicon_pb2.CheckWordsResponse.FromString,
    )
    stream_method = channel.stream_stream(
        f"/{SERVICE}/Stream",
        request_serializer=lexicon_pb2.CheckWordsCall.SerializeToString,
        response_deserializer=lexicon_pb2.CheckWordsResult.FromString,
    )
    stream: StreamedCalls[Any, Any] = StreamedCalls(stream_method, name="bench")
    question = lexicon_pb2.CheckWordsRequest(words=["MAISON" * 10] * 16)  # ~1 KiB
    loop = asyncio.get_running_loop()

    async def ask(style: str) -> None:
        if style == "unary":
            await unary(question, timeout=5)
        else:
            await stream.ask(lexicon_pb2.CheckWordsCall(request=question), 5.0)

    rows = []
    for pace_ms in PACES_MS:
        for style in ("unary", "stream"):
            for _ in range(100):
                await ask(style)
            control.put("start")
            started, latencies = _cpu(), []
            due = time.perf_counter()
            for _ in range(CALLS):
                due += pace_ms / 1000
                before = time.perf_counter()
                await ask(style)
                latencies.append((time.perf_counter() - before) * 1000)
                if (wait := due - time.perf_counter()) > 0:
                    await asyncio.sleep(wait)
            client_cpu = _cpu() - started
            control.put("end")
            server_cpu = await loop.run_in_executor(None, cpu.get)
            latencies.sort()
            rows.append(
                {
                    "pace_ms": pace_ms,
                    "style": style,
                    "client_us": client_cpu / CALLS * 1e6,
                    "server_us": server_cpu / CALLS * 1e6,
                    "p50_ms": latencies[len(latencies) // 2],
                    "p99_ms": latencies[int(len(latencies) * 0.99)],
                }
            )
    await stream.close()
    await channel.close()
    return rows


def main() -> None:
    context = multiprocessing.get_context("spawn")
    ports: Queue[Any] = context.Queue()
    control: Queue[Any] = context.Queue()
    cpu: Queue[Any] = context.Queue()
    server = context.Process(target=_serve, args=(ports, control, cpu), daemon=True)
    server.start()
    rows = uvloop.run(_measure(ports.get(timeout=30), control, cpu))
    control.put("stop")
    server.join(10)
    print(f"loopback gRPC hop, 1 KiB question, {CALLS:,} calls each; {machine()}")
    print("| pace | style | caller CPU per call | server CPU per call | p50 | p99 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        pace = f"one every {row['pace_ms']:g} ms" if row["pace_ms"] else "back to back"
        print(
            f"| {pace} | {row['style']} | {row['client_us']:.0f} µs | {row['server_us']:.0f} µs "
            f"| {row['p50_ms']:.3f} ms | {row['p99_ms']:.3f} ms |"
        )


if __name__ == "__main__":
    main()
