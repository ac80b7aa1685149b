"""Classic control envs from Gymnasium, registered with a fixed `dt` for the runtime."""
