"""Training agents in the arena: PPO with Stable-Baselines3 (`sb3.py`) and a VLM with LoRA (`vlm/`)."""
