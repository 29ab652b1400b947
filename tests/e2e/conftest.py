"""The e2e tier: whole flows (the evaluator, the trainer and replication, RL clients against the reward
service, deploy renders, clusters), and the engine fixtures for the tests that judge in process."""

from tests.support.fixtures import _every_tle_is_cpu_time, engine, settings, state_dir, store  # noqa: F401
from tests.support.rewards import judge, redis_url, reward_service  # noqa: F401 - test_reward_adapters, test_rl_clients
