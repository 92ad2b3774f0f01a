"""Which failed grasp and push calls the environment_errors case blames on the environment."""

from __future__ import annotations

from app.perf.grasp import environment_error


def _step(name, ok, replay):
    return {"kind": "tool", "name": name, "ok": ok, "result": {"replay": replay}}


def test_successes_other_tools_and_refused_calls_are_no_environment_errors():
    assert environment_error(_step("grasp", True, {"reason": ""})) is None
    assert environment_error(_step("find_object", False, {"mask": {}})) is None
    # a malformed call is refused before anything moves: the agent's error
    assert (
        environment_error(
            {
                "kind": "tool",
                "name": "grasp",
                "ok": False,
                "result": {"error": "no mask 'mask_9'", "replay": {}},
            }
        )
        is None
    )
    assert environment_error({"kind": "answer", "name": "answer_question", "ok": True}) is None


def test_a_grasp_refused_because_neighbours_hem_it_in_is_the_agents_choice():
    plan = {
        "rejected": {"fingers would hit": 20, "surfaces not antipodal": 12, "knuckles would hit": 3}
    }
    assert (
        environment_error(_step("grasp", False, {"reason": "no feasible grasp", "plan": plan}))
        is None
    )


def test_a_push_only_object_refused_as_too_wide_is_the_agents_choice():
    wide = {"rejected": {"too wide even open": 40, "surfaces not antipodal": 5}}
    step = _step("grasp", False, {"reason": "no feasible grasp", "plan": wide})
    assert environment_error(step, push_only=True) is None
    assert environment_error(step, push_only=False) == "no feasible grasp"


def test_execution_failures_and_width_refusals_are_the_environments():
    wide = {"rejected": {"too wide even open": 40, "surfaces not antipodal": 5}}
    assert environment_error(
        _step("grasp", False, {"reason": "no feasible grasp", "plan": wide})
    ) == ("no feasible grasp")
    for reason in ("slipped", "collided", "unreachable"):
        assert environment_error(_step("grasp", False, {"reason": reason, "plan": {}})) == reason
    assert environment_error(_step("push", False, {"start": [0, 0, 0]})) == "push failed"


def test_an_object_running_out_of_view_refused_is_the_environments():
    """The camera sees only part of it: no neighbour is to blame, the agent asked for a
    graspable object, and the environment could not plan on what it shows."""
    cut = {"rejected": {"surfaces not antipodal": 30, "contact out of view": 12}}
    step = _step("grasp", False, {"reason": "no feasible grasp", "plan": cut})
    assert environment_error(step) == "no feasible grasp"


def test_a_box_wider_than_the_gripper_every_way_refused_as_too_wide_is_the_agents_choice():
    """No robot with this gripper could take it: the refusal is the right answer, as for
    a push-only kind; a slip or any other refusal on it is still the environment's."""
    wide = {"rejected": {"too wide even open": 40}}
    step = _step("grasp", False, {"reason": "no feasible grasp", "plan": wide})
    assert environment_error(step, wider_than_gripper=True) is None
    assert environment_error(step) == "no feasible grasp"
    hemmed = {"rejected": {"too wide even open": 40, "contact out of view": 3}}
    step = _step("grasp", False, {"reason": "no feasible grasp", "plan": hemmed})
    assert environment_error(step, wider_than_gripper=True) == "no feasible grasp"
    slipped = _step("grasp", False, {"reason": "slipped", "plan": {}})
    assert environment_error(slipped, wider_than_gripper=True) == "slipped"


def test_only_a_box_every_edge_of_which_is_wider_than_the_gripper_takes_is_too_wide():
    from app.perf.grasp import box_wider_than_gripper
    from sim.tabletop.world import TABLE_TOP_Z, TabletopWorld

    with TabletopWorld() as world:
        limit = world.gripper_model.max_grasp_width
        big = world.add_primitive(
            "big", "box", (limit / 2 + 0.004,) * 3, (0.0, 0.1, TABLE_TOP_Z + 0.1), mass=0.3
        )
        slab = world.add_primitive(
            "slab", "box", (0.1, 0.1, 0.02), (0.2, 0.1, TABLE_TOP_Z + 0.02), mass=0.3
        )
        ball = world.add_primitive(
            "ball", "sphere", (limit / 2 + 0.01,), (-0.2, 0.1, TABLE_TOP_Z + 0.1), mass=0.3
        )
        assert box_wider_than_gripper(world, big.uid)
        assert not box_wider_than_gripper(world, slab.uid)  # taken across its thickness
        assert not box_wider_than_gripper(world, ball.uid)  # pinched above its equator
