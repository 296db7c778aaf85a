"""Mechanisms by name: what ``simtlab run --mechanism NAME`` and the reports attach.

Each entry maps a mechanism name to ``"module:factory"``; ``factory(config)`` returns a
:class:`golden.timing.hooks.Mechanism` instance (a fresh one per GPU run, since mechanisms
keep per-run state). Modules are imported only when their mechanism is asked for, so a
broken or heavy mechanism never slows down the others. The baseline is the empty list.
"""

from __future__ import annotations

import importlib

from golden.errors import ConfigError
from golden.mechanisms.arguments import accepted_arguments, convert
from golden.mechanisms.arguments import parameters as declared_parameters
from golden.mechanisms.claims import conflicts, ordered

#: name -> "module:factory". Mechanism authors add one line here.
MECHANISMS: dict[str, str] = {
    "darsie": "golden.mechanisms.darsie.skip:make_darsie",
    "darsie-ignore-store": "golden.mechanisms.darsie.skip:make_darsie_ignore_store",
    "darsie-no-cf-sync": "golden.mechanisms.darsie.nocfsync:make_darsie_no_cf_sync",
    "uv": "golden.mechanisms.uv.mechanism:make_uv_darsie",
    "dac-ideal": "golden.mechanisms.darsie.dac_affine:make_dac_ideal",
    "gscalar": "golden.mechanisms.gscalar.timing:make_gscalar",
    "gscalar-half": "golden.mechanisms.gscalar.timing:make_gscalar_half",
    "alu-scalar": "golden.mechanisms.gscalar.timing:make_alu_scalar",
    "uv-token": "golden.mechanisms.uv.mechanism:make_uv_token",
    "uv-token-intra": "golden.mechanisms.uv.mechanism:make_uv_token_intra",
    "uv-token-inter": "golden.mechanisms.uv.mechanism:make_uv_token_inter",
    "uv-token-combined": "golden.mechanisms.uv.mechanism:make_uv_token",
    "uv-srf": "golden.mechanisms.uv.mechanism:make_uv_srf",
    "uv-srf-intra": "golden.mechanisms.uv.mechanism:make_uv_srf_intra",
    "uv-srf-inter": "golden.mechanisms.uv.mechanism:make_uv_srf_inter",
    "uv-srf-combined": "golden.mechanisms.uv.mechanism:make_uv_srf",
    "ilp-sc": "golden.mechanisms.ilp.scoreboard:make_ilp_sc",
    "ilp-bp-static": "golden.mechanisms.ilp.branch:make_ilp_bp_static",
    "ilp-bp-gshare": "golden.mechanisms.ilp.branch:make_ilp_bp_gshare",
    "ilp-bp-gshare-warp": "golden.mechanisms.ilp.branch:make_ilp_bp_gshare_warp",
    "ilp-bp-perfect": "golden.mechanisms.ilp.branch:make_ilp_bp_perfect",
    "warpman-temp": "golden.mechanisms.warpman.mechanism:make_warpman_temp",
    "warpman-spatial": "golden.mechanisms.warpman.mechanism:make_warpman_spatial",
    "warpman-duel": "golden.mechanisms.warpman.mechanism:make_warpman_duel",
    "warpman-threshold": "golden.mechanisms.warpman.mechanism:make_warpman_threshold",
    "warp-lifetimes": "golden.mechanisms.warpman.lifetimes:make_warp_lifetimes",
    "coarse2": "golden.mechanisms.coarse_l1.mechanism:make_coarse2",
    "coarse4": "golden.mechanisms.coarse_l1.mechanism:make_coarse4",
    "coarse2-duel": "golden.mechanisms.coarse_l1.mechanism:make_coarse2_duel",
    "coarse4-duel": "golden.mechanisms.coarse_l1.mechanism:make_coarse4_duel",
    "capri-oracle": "golden.mechanisms.capri.oracle:make_capri_oracle",
    "tbc": "golden.mechanisms.capri.tbc:make_tbc",
    "tbc-plus": "golden.mechanisms.capri.tbc:make_tbc_plus",
    "capri": "golden.mechanisms.capri.mechanism:make_capri",
    "capri-1bs": "golden.mechanisms.capri.mechanism:make_capri_1bs",
    "capri-2bit": "golden.mechanisms.capri.mechanism:make_capri_2bit",
}


def names() -> list[str]:
    """Registered mechanism names, sorted."""
    return sorted(MECHANISMS)


def parse_name(text: str) -> tuple[str, dict]:
    """Split ``"name:key=value,key=value"`` into the mechanism name and its arguments as
    written (strings), e.g. ``"ilp-sc:entries=4"`` -> ``("ilp-sc", {"entries": "4"})``.
    A malformed item or a key given twice is a ConfigError; the types come from the
    mechanism's declared parameters (:func:`arguments`)."""
    name, _, args = text.partition(":")
    raw: dict[str, str] = {}
    for item in filter(None, args.split(",")):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key.isidentifier():
            raise ConfigError(f"mechanism '{text}': argument '{item}' is not key=value")
        if key in raw:
            raise ConfigError(f"mechanism '{text}': argument '{key}' is given twice")
        raw[key] = value.strip()
    return name, raw


def _factory(name: str, text: str):
    spec = MECHANISMS.get(name)
    if spec is None:
        known = ", ".join(names()) or "(none registered)"
        raise ConfigError(f"unknown mechanism '{name}'; known mechanisms: {known}")
    module, _, factory = spec.partition(":")
    return getattr(importlib.import_module(module), factory)


def arguments(text: str) -> tuple[str, dict]:
    """The mechanism name of ``text`` and its keyword arguments, each parsed by the type
    the mechanism declares (:mod:`golden.mechanisms.arguments`): an unknown key, a key
    the name already fixes (``coarse2:group=4``) or a value of the wrong type is a
    one-line ConfigError naming the mechanism, the key and the accepted values."""
    name, raw = parse_name(text)
    params, fixed = declared_parameters(_factory(name, text))
    kwargs = {}
    for key, value in raw.items():
        if key in fixed:
            raise ConfigError(f"mechanism '{text}': {key} is set by the name '{name}' and "
                              f"cannot be given (another mechanism name sets another {key})")
        kind = params.get(key)
        if kind is None:
            raise ConfigError(f"mechanism '{text}': unknown argument '{key}' "
                              f"({accepted_arguments(name, params)})")
        kwargs[key] = convert(text, key, value, kind)
    return name, kwargs


def make_mechanisms(mechanisms, config) -> list:
    """Instantiate the named mechanisms of one run for ``config`` (a :class:`GPUConfig`).
    A name may carry keyword arguments for its factory: ``"ilp-sc:entries=4"``
    (:func:`arguments`). The same mechanism twice, or two mechanisms that claim the same
    part of the SM or one that claims a part the other assumes (:mod:`golden.mechanisms.claims`),
    are refused before the run. The instances are returned in the composition order
    (:data:`golden.mechanisms.claims.CHAIN`), which is the order the SM calls their hooks."""
    parsed = [(text, *arguments(text)) for text in mechanisms]
    for i, (text, name, _) in enumerate(parsed):
        for other, oname, _ in parsed[:i]:
            if MECHANISMS[oname] == MECHANISMS[name]:
                raise ConfigError(f"mechanisms '{other}' and '{text}': the same mechanism "
                                  f"twice in one run (give it once, with all its arguments)")
    out = [(text, _factory(name, text)(config, **kwargs)) for text, name, kwargs in parsed]
    clash = conflicts(out)
    if clash is not None:
        a, b, reason = clash
        raise ConfigError(f"mechanisms '{a}' and '{b}' cannot run together: {reason}")
    return [m for _, m in ordered(out)]
