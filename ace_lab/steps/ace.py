"""Step payloads specific to ACE (plain data; views and reports dispatch on these types)."""

from __future__ import annotations

from dataclasses import dataclass  # noqa: F401

from ace_lab.steps import AnswerDetails, StepPayload  # noqa: F401
