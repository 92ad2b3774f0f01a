"""Scenes and questions built by hand (MG-VQA-Hard): `scenes` from a spec of placements,
`questions` authored on a chosen scene with the generators' checks."""
