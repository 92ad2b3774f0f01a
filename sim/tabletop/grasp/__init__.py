"""Grasping on the tabletop: the planner's candidates and checks (`plan`, on the object's
cross-sections in `sections` and the gripper's links in `envelope`), the plan's values
(`candidates`), the words for a refusal (`text`), and executing a grasp with real contacts
(`execute`); docs/grasping.md."""
