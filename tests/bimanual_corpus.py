"""The bimanual log corpus (tests/data/bimanual), copied to a temporary folder with its
observation images made on the fly: tiny JPEGs/PNGs, so no binaries are committed."""

from __future__ import annotations

import ast
import json
import math
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


# -- BiManiBench's fine-control (VLA) writer, played from a script -------------------------
def _safe_eval(expr):
    """safe_eval inside the envs' take_action_by_dict_vla (envs/grab_roller.py and the other
    fine-control tasks): the model's arithmetic with no builtins, NaN when it fails."""
    try:
        return eval(expr, {"__builtins__": None}, {})  # noqa: S307  (the harness's own reading)
    except Exception:
        return float("nan")


def _parse_action_sequence(obj):
    """parse_action_sequence inside take_action_by_dict_vla, as written."""
    if isinstance(obj, str):
        try:
            obj = ast.literal_eval(obj)
        except Exception:
            obj = [x.strip() for x in obj.strip("[]").split(",")]
    if not isinstance(obj, (list, tuple)):
        obj = [obj]
    result = []
    for x in obj:
        if isinstance(x, (int, float)):
            result.append(float(x))
        elif isinstance(x, str):
            result.append(float(_safe_eval(x)))
        else:
            result.append(float(_safe_eval(str(x))))
    return result


def _take_action_by_dict_vla(action_object):
    """TASK_ENV.take_action_by_dict_vla (the same in every fine-control env): the row is
    read, checked for 16 numbers and handed to take_action(action_type='ee'), which moves
    the arms and returns nothing, so any row it gets to counts as done."""
    try:
        final_action = _parse_action_sequence(action_object)
        final_action = [float(i) for i in final_action]
        if len(final_action) != 16:
            return f"Invalid action length: {len(final_action)}. Must be a list or tuple of 16 numbers."  # noqa: E501
        return True  # self.take_action(action=final_action, action_type='ee')
    except Exception as e:
        return f"Error when parsing action: {e}"


def write_bimanibench_vla_run(root: Path, spec_file: Path = WRITERS / "bimanibench_vla_run.json"):
    """Write a fine-control run folder the way BiManiBench's script/myvlmEb_eval_vla.py
    eval_policy does (commit 3a85fbb), line by line, with its planner's reading of a reply
    (script/vlmplanner_vla.py VLMPlanner.json_to_action, then act's cut to the first
    actionChunkNum items) and each env's take_action_by_dict_vla (`_take_action_by_dict_vla`);
    the model's replies and TASK_ENV.check_success() after each step come from the spec.
    Return (save_dir, per "r/e" the action_feedback of each step, the success flag, why
    json_to_action returned {} at each step, and the action list act() handed on)."""
    spec = json.loads(spec_file.read_text())
    task_name, model_name = spec["task_name"], spec["model_name"]
    action_limit, actionChunkNum = spec["action_limit"], spec["action_chunk_num"]  # noqa: N806
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
            feedbacks, errors, taken, done = [], [], [], False
            now_action_cnt = 0
            action_count_vla = 0
            while (
                now_action_cnt < action_limit or action_count_vla <= 12
            ) and now_action_cnt < math.ceil(1.5 * action_limit):
                step = next(script)
                path.mkdir(parents=True, exist_ok=True)
                for name in ("obsimg_third", "obsimg_leftright", "obsimg"):
                    shade += 7
                    _jpeg(path / f"{name}_{now_action_cnt:04d}.jpg", shade)
                out = step["out"]
                actionList, error = _json_to_action(out)  # noqa: N806  planner.act
                if actionChunkNum != 0 and len(actionList) > 0:
                    actionList = actionList[0 : min(actionChunkNum, len(actionList))]  # noqa: N806
                errors.append(error)
                taken.append(actionList)
                with open(path / "vlmout.txt", "a", encoding="utf-8") as f:  # write_print
                    print(f"step {now_action_cnt}: ***************", file=f)
                    print(out, file=f)
                action_feedback = ""
                if actionList != {}:
                    if isinstance(actionList, dict):  # never reached: act() cannot slice a dict
                        raise AssertionError("the harness's one-action branch is unreachable")
                    actionit = 0
                    for action in actionList:
                        res = _take_action_by_dict_vla(action)
                        if res is not True:
                            action_feedback += f"Action failed: {res}\n"
                            with open(failed_record_path, "a", encoding="utf-8") as f:
                                f.write(
                                    f"Task {task_name} failed at round {round}, episode {now_episode}, action count {now_action_cnt}, action it:{actionit}: Action failed: {res}\n"
                                )  # noqa: E501
                            break
                        action_feedback += "Action succeeded.\n"
                        views = path / f"obsimg_{now_action_cnt:04d}-{now_action_cnt + 1:04d}"
                        views.mkdir(exist_ok=True)
                        shade += 7
                        _jpeg(views / f"obsimg_{actionit:02d}.jpg", shade)
                        _jpeg(views / f"obsimg_{actionit:02d}_third.jpg", shade + 3)
                        actionit += 1
                    action_count_vla += actionit
                else:
                    action_feedback += EMPTY_FEEDBACK
                feedbacks.append(action_feedback)
                if step["success"]:  # TASK_ENV.check_success()
                    done = True
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
            assert next(script, None) is None, f"{round}/{now_episode}: steps the loop never took"
            did[f"{round}/{now_episode}"] = (feedbacks, done, errors, taken)
    with open(success_record_path, "a", encoding="utf-8") as f:
        f.write(
            f"Task {task_name} evaluation completed. Total successes: {suc}/{test_num * round_num}\n"
        )  # noqa: E501
    return save_dir, did


# -- EmbodiedBench's writers, played from a script -----------------------------------------
def _png(path: Path, shade: int) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (12, 12), (shade % 256, 90, 30)).save(path, "PNG")


def _alfred_json_to_action(output_text, n_actions):
    """EmbodiedBench planner/vlm_planner.py VLMPlanner.json_to_action, as written (the
    error count returned beside the action)."""
    try:
        json_object = json.loads(output_text)
        action = [x["action_id"] for x in json_object["executable_plan"]]
        if not len(action):
            action = -2
        else:
            for i, act in enumerate(action):
                if act >= n_actions or act < 0:
                    action = -1 if i == 0 else action[:i]
                    break
    except json.JSONDecodeError:
        return -1, 1
    except Exception:
        return -1, 1
    return action, 0


def write_alfred_run(root: Path, spec_file: Path = WRITERS / "embodiedbench.json"):
    """Eval-set folders as EB-ALFRED writes them (eb_alfred_evaluator.py evaluate,
    EBAlfEnv.step / save_image / save_episode_log); return the model folder and what the
    evaluator did: per (set, episode) the log entries and the episode_info it saved."""
    spec = json.loads(spec_file.read_text())
    skills = spec["skills"]
    model_dir = root / f"{spec['model']}_{spec['exp_name']}"
    did, shade = {}, 0
    for eval_set, episodes in spec["alfred"].items():
        log_path = model_dir / eval_set
        for number, script in enumerate(episodes, start=1):  # reset() counts from 1
            replies = iter(script)
            episode_info = {"reward": [], "num_invalid_actions": 0, "empty_plan": 0}
            current_step, cur_invalid, output_json_error, planner_steps = 0, 0, 0, 0
            episode_log, info = [], {}

            def save_image(current_step, shade, number=number, log_path=log_path):
                folder = log_path / "images" / f"episode_{number}"
                _png(folder / f"episode_{number}_step_{current_step}.png", shade)

            save_image(current_step, shade)
            done = False
            while not done:
                reply = next(replies)
                planner_steps += 1
                results = iter(reply["results"])
                action, error = _alfred_json_to_action(reply["out"], len(skills))
                output_json_error += error
                reasoning = reply["out"]
                if action == -2:
                    episode_info["empty_plan"] = 1
                    episode_log.append(
                        {
                            "last_action_success": 0.0,
                            "action_id": -2,
                            "action_description": "empty plan",
                            "reasoning": reasoning,
                        }
                    )
                    info = {
                        "task_success": episode_info.get("task_success", 0),
                        "task_progress": episode_info.get("task_progress", 0),
                        "env_step": current_step,
                    }
                    break
                if action == -1:
                    cur_invalid += 1
                    episode_info["reward"].append(-1)
                    episode_info["num_invalid_actions"] += 1
                    episode_log.append(
                        {
                            "last_action_success": 0.0,
                            "action_id": -1,
                            "action_description": "invalid action",
                            "reasoning": reasoning,
                        }
                    )
                    info = {"task_success": 0, "task_progress": 0, "env_step": current_step}
                    if cur_invalid >= spec["max_invalid_actions"]:
                        break
                    continue
                for action_single in action[
                    : min(spec["max_episode_steps"] - current_step, len(action))
                ]:
                    success, message, goal = next(results)
                    current_step += 1  # EBAlfEnv.step
                    if not success:
                        cur_invalid += 1
                    done = bool(
                        current_step >= spec["max_episode_steps"]
                        or goal
                        or cur_invalid >= spec["max_invalid_actions"]
                    )
                    feedback = (
                        "Last action executed successfully."
                        if success
                        else f"Last action is invalid. {message}"
                    )
                    info = {
                        "task_success": float(goal),
                        "task_progress": goal,
                        "instruction": "put an apple in the fridge",
                        "env_step": current_step,
                        "env_feedback": feedback,
                        "episode_elapsed_seconds": 1.0,
                        "last_action_success": float(success),
                        "action_id": action_single,
                        "action_description": skills[action_single],
                        "reasoning": reasoning,
                    }
                    episode_log.append(info)
                    shade += 11
                    save_image(current_step, shade)
                    episode_info["reward"].append(0)
                    episode_info["num_invalid_actions"] += info["last_action_success"] == 0
                    if done or not info["last_action_success"]:
                        break
            episode_info.update(
                instruction="put an apple in the fridge",
                task_success=info["task_success"],
                task_progress=info["task_progress"],
                num_steps=info["env_step"],
                planner_steps=planner_steps,
                planner_output_error=output_json_error,
            )
            episode_info["reward"] = sum(episode_info["reward"]) / max(
                1, len(episode_info["reward"])
            )
            with open(log_path / f"episode_{number}_step_{current_step}.json", "w") as f:
                for item in episode_log:  # save_episode_log
                    json.dump(item, f, ensure_ascii=False)
                    f.write("\n")
            (log_path / "results").mkdir(exist_ok=True)
            with open(log_path / "results" / f"episode_{number}_final_res.json", "w") as f:
                json.dump(episode_info, f, ensure_ascii=False)
            did[(eval_set, number)] = (episode_log, episode_info)
    return model_dir, did


def write_manipulation_run(root: Path, spec_file: Path = WRITERS / "embodiedbench.json"):
    """Eval-set folders as EB-Manipulation writes them (eb_manipulation_evaluator.py
    evaluate, save_episode_metric, save_planner_outputs, EBManEnv.save_image): no step logs;
    return the model folder and per (set, episode) the replies and the saved episode_info."""
    spec = json.loads(spec_file.read_text())
    model_dir = root / f"{spec['model']}_{spec['exp_name']}"
    did, shade = {}, 0
    for eval_set, episodes in spec["manipulation"].items():
        log_path = model_dir / eval_set
        for number, script in enumerate(episodes, start=1):
            replies = iter(script)
            episode_info = {"reward": [], "action_success": []}
            current_step, output_json_error, planner_steps = 0, 0, 0
            folder = log_path / "images" / f"episode_{number}"
            _png(folder / f"episode_{number}_step_{current_step}_front_rgb.png", shade)
            done, reasoning_list, info = False, [], {}
            while not done:
                reply = next(replies)
                planner_steps += 1
                out = reply["out"]
                try:  # ManipPlanner.json_to_action, the paths this script reaches
                    plan = json.loads(out)["executable_plan"]
                    action = [x["action"] for x in plan]
                    if not action:
                        output_json_error = -1
                except Exception:
                    output_json_error += 1
                    action = [[0, 0, 0, 0, 0, 0, 1.0]]  # its random action
                reasoning_list.append(out)
                if len(action) == 0:
                    episode_info["reward"].append(0)
                    episode_info["action_success"].append(0)
                    info = {"task_success": 0, "episode_elapsed_seconds": 0}
                    break
                for _action_single, (success, _message, goal) in zip(
                    action, reply["results"], strict=False
                ):
                    current_step += 1
                    done = bool(goal)
                    info = {
                        "task_success": float(goal),
                        "action_success": float(success),
                        "episode_elapsed_seconds": 1.0,
                    }
                    shade += 13
                    _png(folder / f"episode_{number}_step_{current_step}_front_rgb.png", shade)
                    episode_info["reward"].append(0)
                    episode_info["action_success"].append(info["action_success"])
                    if done:
                        break
            episode_info.update(
                instruction="stack the cubes",
                avg_reward=0.0,
                task_success=info["task_success"],
                num_steps=current_step,
                planner_steps=planner_steps,
                planner_output_error=output_json_error,
                episode_elapsed_seconds=info["episode_elapsed_seconds"],
            )
            (log_path / "results").mkdir(parents=True, exist_ok=True)
            with open(
                log_path / "results" / f"episode_{number}_res.json", "w", encoding="utf-8"
            ) as f:
                json.dump(episode_info, f, ensure_ascii=False)
            with open(
                log_path / "results" / f"planner_output_episode_{number}.txt", "w", encoding="utf-8"
            ) as f:
                for s in reasoning_list:
                    f.write(s + "\n")
            did[(eval_set, number)] = (reasoning_list, episode_info)
    return model_dir, did
