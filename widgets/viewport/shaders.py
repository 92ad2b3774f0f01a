"""GLSL of the 3D viewport's shape items (see `widgets.viewport.items.ShapeItem`).

Attributes: position, normal, colour (an array, or one constant colour for the
whole item) and texture coordinates. Uniforms: the model-view-projection,
model-view and normal matrices; `u_style` packs the item's tint, a flat colour
and its amount (1: unlit, exactly that colour; the outlines and markers of
`widgets.viewport.overlay`) and its alpha into one upload; `u_shift` moves the
item on screen (clip space, in normalised device units: an outline is the
silhouette drawn shifted around the body); `u_textured` switches the texture on.
"""

# Legacy GLSL (as pyqtgraph's own shaders), so it also compiles as GLSL ES 1.00.
# Lighting is per vertex: on a software rasteriser (llvmpipe) the fragment shader
# is what a frame costs, so it only samples the texture and adds.
VERTEX = """
uniform mat4 u_mvp;
uniform mat4 u_modelview;
uniform mat3 u_normal;
uniform vec4 u_style[3];  // tint; flat rgb + amount; alpha, -, -, -
uniform vec2 u_shift;  // screen offset in normalised device coordinates
attribute vec4 a_position;
attribute vec3 a_normal;
attribute vec4 a_color;
attribute vec2 a_texcoord;
varying vec3 v_multiply;
varying vec3 v_add;
varying float v_alpha;
varying vec2 v_texcoord;
void main() {
    vec3 n = normalize(u_normal * a_normal);
    vec3 to_eye = normalize(-(u_modelview * a_position).xyz);
    if (dot(n, to_eye) < 0.0) n = -n;  // two-sided: mesh windings are not reliable
    vec3 key = normalize(vec3(0.35, 0.6, 1.0));
    vec3 fill = normalize(vec3(-0.7, -0.3, 0.5));
    float light = 0.32 + 0.58 * max(dot(n, key), 0.0) + 0.18 * max(dot(n, fill), 0.0);
    float shine = 0.12 * pow(max(dot(reflect(-key, n), to_eye), 0.0), 24.0);
    float flat_amount = u_style[1].a;
    vec4 base = a_color * u_style[0];
    v_multiply = base.rgb * light * (1.0 - flat_amount);
    v_add = vec3(shine) * (1.0 - flat_amount) + u_style[1].rgb * flat_amount;
    v_alpha = base.a * u_style[2].x;
    v_texcoord = a_texcoord;
    gl_Position = u_mvp * a_position;
    gl_Position.xy += u_shift * gl_Position.w;
}
"""
FRAGMENT = """
#ifdef GL_ES
precision mediump float;
#endif
uniform sampler2D u_texture;
uniform float u_textured;  // a uniform, not a varying: the branch is the same for every pixel
varying vec3 v_multiply;
varying vec3 v_add;
varying float v_alpha;
varying vec2 v_texcoord;
void main() {
    vec4 texel = vec4(1.0);
    if (u_textured > 0.5) texel = texture2D(u_texture, v_texcoord);
    gl_FragColor = vec4(clamp(v_multiply * texel.rgb + v_add, 0.0, 1.0), v_alpha * texel.a);
}
"""
ATTRIBUTES = {"a_position": 0, "a_normal": 1, "a_color": 2, "a_texcoord": 3}
UNIFORMS = ("u_mvp", "u_modelview", "u_normal", "u_texture", "u_textured", "u_style", "u_shift")
