"""Shipped assets: icons, taxonomies, textures, demo-data recipes."""
