"""The bimanual log corpus (tests/data/bimanual), copied to a temporary folder with its
observation images made on the fly: tiny JPEGs/PNGs, so no binaries are committed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from app.demo.bimanual import write_listed_images

DATA = Path(__file__).resolve().parent / "data" / "bimanual"
RUN = Path(
    "bimanibench/eval_result/high_level/handover_block/vlmpolicy/config_arx_x5_0_7/"
    "2025-06-01_120000"
)
EPISODES = RUN / "obsimg" / "round0"
EMBODIED = Path("embodiedbench/gpt-5_base/stack_blocks_two")


def make_corpus(tmp_path: Path, *, fixed: bool = True) -> Path:
    """A copy of the corpus under tmp_path with every image listed in jpegs.txt written:
    32 x 32, one colour per name, except names marked `same` (one shared colour).

    The BiManiBench replies in tests/data are the parser's corpus, as models write them.
    BiManiBench logs a reply after `fix_json` (script/remote_model.py), so with `fixed`
    each reply our repair can read is written back as the plain JSON it means (the one
    that cannot stays as it is) and the run's failed_record.txt gets the line the harness
    writes for the failed grasp of round 0, episode 1, step 1."""
    root = tmp_path / "bimanual"
    shutil.copytree(DATA, root)
    write_listed_images(root, DATA / "jpegs.txt")
    if fixed:
        _fix_replies(root / EPISODES)
        with open(root / RUN / "failed_record.txt", "a", encoding="utf-8") as f:
            f.write(FAILED_LINE)
    return root


FAILED_LINE = (
    "Task handover_block failed at round 0, episode 1, action count 1, action it:0:"
    " Action failed: grasp_actor: the right arm cannot reach block\n"
)


def _fix_replies(episodes: Path) -> None:
    from annotation.bimanual.logs import split_vlmout
    from annotation.model_output import repair_json

    for vlmout in sorted(episodes.glob("episode*/vlmout.txt")):
        out = []
        for n, raw in split_vlmout(vlmout.read_text()):
            value, _repairs, why = repair_json(raw)
            out.append(f"step {n}: ***************\n{raw if why else json.dumps(value)}\n")
        vlmout.write_text("".join(out))


def imported_project(tmp_path: Path, name: str = "runs.reasonscope") -> Path:
    """A new project under tmp_path holding the whole corpus, imported through the CLI
    (both formats), as a user would."""
    from app.cli import main
    from store import open_project

    corpus = make_corpus(tmp_path)
    path = tmp_path / name
    open_project(path, create=True).close()
    for fmt in ("bimanibench", "embodiedbench"):
        code = main(["import", "episodes", str(corpus / fmt), "--format", fmt, "--db", str(path)])
        assert code == 0, f"importing the {fmt} corpus failed"
    return path


# -- BiManiBench's writer, played from a script --------------------------------------------
WRITERS = DATA / "writers"
EMPTY_FEEDBACK = (
    "Action is empty, no action taken. If task is not finished, check the task is finished or"
    " not according to the image.\n"
)


def _json_to_action(output_text, json_key="executable_plan"):
    """BiManiBench script/vlmplanner.py VLMPlanner.json_to_action, as written (the error
    count's cause returned beside the plan instead of counted on the planner)."""
    try:
        json_object = json.loads(output_text)
        action_list = json_object.get(json_key, {})
        if isinstance(action_list, list):
            if len(action_list) == 0:
                return {}, "empty"
        return action_list, ""
    except json.JSONDecodeError:
        return {}, "decode"
    except Exception:
        return {}, "other"


def _jpeg(path: Path, shade: int) -> None:
    from PIL import Image

    Image.new("RGB", (16, 12), (shade % 256, 40, 200 - shade % 200)).save(path, "JPEG")


def write_bimanibench_run(root: Path, spec_file: Path = WRITERS / "bimanibench_run.json"):
    """Write a run folder the way BiManiBench's script/myvlmEb_eval.py eval_policy does
    (commit 3a85fbb), line by line, with the model's replies and TASK_ENV's results taken
    from the spec; return (save_dir, what the harness did: per "r/e" the action_feedback
    of each step, the success flag, and why json_to_action returned {} at each step)."""
    spec = json.loads(spec_file.read_text())
    task_name, model_name = spec["task_name"], spec["model_name"]
    save_dir = root / "eval_result" / spec["run"]
    save_dir.mkdir(parents=True)
    success_record_path = f"{save_dir}/success_record.txt"
    failed_record_path = f"{save_dir}/failed_record.txt"
    with open(f"{save_dir}/model_name.txt", "a", encoding="utf-8") as f:
        f.write(f"Model used: {model_name}\n")
    did, suc, shade = {}, 0, 0
    round_num, test_num = 2, spec["test_num"]
    for round in range(round_num):  # noqa: A001  (the harness's name)
        for now_episode in range(test_num):
            script = iter(spec["episodes"][f"{round}/{now_episode}"])
            path = save_dir / "obsimg" / f"round{round}" / f"episode{now_episode}"
            feedbacks, errors, done = [], [], False
            now_action_cnt = 0
            while now_action_cnt < spec["action_limit"]:
                step = next(script)
                results = iter(step["results"])
                path.mkdir(parents=True, exist_ok=True)
                for name in ("obsimg_third", "obsimg_leftright", "obsimg"):
                    shade += 7
                    _jpeg(path / f"{name}_{now_action_cnt:04d}.jpg", shade)
                out = step["out"]
                action_list, error = _json_to_action(out)
                errors.append(error)
                with open(path / "vlmout.txt", "a", encoding="utf-8") as f:  # write_print
                    print(f"step {now_action_cnt}: ***************", file=f)
                    print(out, file=f)
                action_feedback = ""
                if action_list != {}:
                    if isinstance(action_list, dict):
                        res = next(results)
                        done = done or res == "done"
                        ok = res is True or res == "done"
                        action_feedback += (
                            "Action succeeded.\n" if ok else f"Action failed: {res}\n"
                        )
                    else:
                        actionit = 0
                        for action in action_list:
                            if isinstance(action, dict):
                                res = next(results)
                                views = (
                                    path / f"obsimg_{now_action_cnt:04d}-{now_action_cnt + 1:04d}"
                                )
                                views.mkdir(exist_ok=True)
                                shade += 7
                                _jpeg(views / f"obsimg_{actionit:02d}.jpg", shade)
                                _jpeg(views / f"obsimg_{actionit:02d}_third.jpg", shade + 3)
                                if res is not True and res != "done":
                                    action_feedback += f"Action failed: {res}\n"
                                    with open(failed_record_path, "a", encoding="utf-8") as f:
                                        f.write(
                                            f"Task {task_name} failed at round {round}, episode {now_episode}, action count {now_action_cnt}, action it:{actionit}: Action failed: {res}\n"
                                        )  # noqa: E501
                                    break
                                action_feedback += "Action succeeded.\n"
                                done = done or res == "done"
                                if done:
                                    break
                            else:
                                action_feedback += f"Invalid action format: {action}\n"
                            actionit += 1
                else:
                    action_feedback += EMPTY_FEEDBACK
                feedbacks.append(action_feedback)
                if done:
                    shade += 7
                    _jpeg(path / f"obsimg_{now_action_cnt + 1:04d}.jpg", shade)
                    _jpeg(path / f"obsimg_third_{now_action_cnt + 1:04d}.jpg", shade + 3)
                    with open(success_record_path, "a", encoding="utf-8") as f:
                        f.write(
                            f"Task {task_name} success at round {round}, episode {now_episode}, action count {now_action_cnt}\n"
                        )  # noqa: E501
                    suc += 1
                    break
                now_action_cnt += 1
            did[f"{round}/{now_episode}"] = (feedbacks, done, errors)
    with open(success_record_path, "a", encoding="utf-8") as f:
        f.write(
            f"Task {task_name} evaluation completed. Total successes: {suc}/{test_num * round_num}\n"
        )  # noqa: E501
    return save_dir, did
