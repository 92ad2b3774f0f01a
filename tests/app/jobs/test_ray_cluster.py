"""A two-node Ray cluster on this machine, made with `ray start` as on a real one, used
through `--ray-address`: the head node has no CPUs, so every scene is made on the
second node, and the stored scenes equal the ones made in this process."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from app.cli import main
from store import open_project

RAY = Path(sys.executable).with_name("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    """`ray start ... --block` in its own process group (raylet and GCS join it)."""
    return subprocess.Popen(
        [str(RAY), "start", *args, "--block"],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )


def _stop(process: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=15)
            return
        except subprocess.TimeoutExpired:
            continue


def _wait_for_cpus(address: str, env: dict[str, str], cpus: int, log: Path) -> None:
    probe = (
        "import ray; ray.init(address=%r, _node_ip_address='127.0.0.1', "
        "log_to_driver=False); print(int(ray.cluster_resources().get('CPU', 0)))"
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        done = subprocess.run(
            [sys.executable, "-c", probe % address],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        if done.returncode == 0 and done.stdout.strip().endswith(str(cpus)):
            return
        time.sleep(2)
    pytest.fail(f"the two-node cluster did not come up: {log.read_text()[-2000:]}")


def test_scenes_made_on_a_second_node_through_ray_address(tmp_path, capsys):
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "QT_QPA_PLATFORM": "offscreen"}
    port = _free_port()
    # Ray's socket paths must stay under 108 bytes: a short folder, not tmp_path.
    temp = tempfile.mkdtemp(prefix="rs-ray-")
    address = f"127.0.0.1:{port}"
    head = _start(
        [
            "--head",
            "--node-ip-address=127.0.0.1",
            f"--port={port}",
            "--num-cpus=0",
            "--include-dashboard=false",
            f"--temp-dir={temp}",
        ],
        tmp_path / "head.log",
        env,
    )
    nodes = [head]
    try:
        time.sleep(3)
        nodes.append(
            _start(
                [f"--address={address}", "--node-ip-address=127.0.0.1", "--num-cpus=1"],
                tmp_path / "node.log",
                env,
            )
        )
        _wait_for_cpus(address, env, 1, tmp_path / "node.log")
        here, there = str(tmp_path / "here.reasonscope"), str(tmp_path / "there.reasonscope")
        for db in (here, there):
            open_project(db, create=True).close()
        args = ["scenes", "generate", "--n", "2", "--seed", "21", "--objects", "3-4"]
        assert main([*args, "--db", here]) == 0
        done = subprocess.run(
            [sys.executable, "-m", "app.cli", *args, "--db", there, "--ray-address", address],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert f"ray ({address})" in done.stdout
    finally:
        for node in reversed(nodes):
            _stop(node)
        shutil.rmtree(temp, ignore_errors=True)
    for db in (here, there):
        assert main(["scenes", "export", "--db", db, "--out", db + ".jsonl"]) == 0
    capsys.readouterr()
    assert Path(here + ".jsonl").read_bytes() == Path(there + ".jsonl").read_bytes()
