"""GPU configurations: one validated YAML file per seed paper's baseline GPU.

``load_config("pascal")`` returns a frozen :class:`GPUConfig`; ``list_configs()`` lists
the shipped files. The schema (every parameter, its unit and its valid range) is in
:mod:`golden.configs.schema`; loading and validation are in :mod:`golden.configs.loader`.
"""

from golden.configs.loader import ALIASES, list_aliases, list_configs, load_config, resolve_path
from golden.configs.schema import (
    CoreConfig, DRAMConfig, EnergyConfig, EnergyEvent, GPUConfig, ICacheConfig, L1Config,
    L2Config, MemoryConfig, PipelineConfig, PipelinesConfig, RegisterFileConfig,
    SharedMemConfig, StaticPower, as_dict,
)

__all__ = [
    "ALIASES", "list_aliases", "list_configs", "load_config", "resolve_path",
    "CoreConfig", "DRAMConfig", "EnergyConfig", "EnergyEvent", "GPUConfig", "ICacheConfig",
    "L1Config", "L2Config", "MemoryConfig", "PipelineConfig", "PipelinesConfig",
    "RegisterFileConfig", "SharedMemConfig", "StaticPower", "as_dict",
]
