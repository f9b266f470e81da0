"""Waiting in Pilot tests for what a test needs, never for a fixed time.

``pilot.pause()`` without a delay waits until the process looks idle (Textual's
``wait_for_idle``: at least 20 ms, up to a second while any thread of the
process works, and on a busy machine it often takes the second), and
``pilot.pause(0.3)`` waits 0.3 s whether or not anything happened. These
helpers instead let the app handle what is queued (``pilot.pause(0)``: every
widget of the screen has processed the messages it had) until no message is
left, and wait for the condition a test is about: the worker it needs has
ended, the message it needs has been handled."""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key
from textual.pilot import Pilot

#: How long a wait may take before the test fails: generous, for a busy machine.
TIMEOUT = 30.0
#: Rounds of message handling ``step`` allows before it gives up on a quiet app
#: (an app whose widgets keep posting to each other).
ROUNDS = 50


def queued(app: App[Any]) -> int:
    """Messages waiting in the app's and its screen's widgets' queues."""
    return app.message_queue_size + sum(node.message_queue_size for node in app.screen.walk_children(with_self=True))


async def step(pilot: Pilot[Any]) -> None:
    """Let the app handle the messages queued so far, and those that handling
    them posts, until none is left (at most ``ROUNDS`` rounds).

    Each round is ``pilot.pause(0)`` (every widget of the screen has processed
    what it had, a turn of the event loop, then the screen's update: layout
    and paint of what changed), except that the update waits until no message
    is left: a paint made while messages are still queued would be painted
    again in the next round, and painting is most of a Pilot test's time.
    What a test sees when ``step`` returns is the same: an app with nothing
    queued, laid out and painted after its last message."""
    app = pilot.app
    for round_ in range(ROUNDS):
        await pilot._wait_for_screen()
        await asyncio.sleep(0)
        if queued(app) and round_ < ROUNDS - 1:
            continue
        app.screen._on_timer_update()
        if not queued(app):
            return


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """``pilot.press(*keys)`` without its waits for an idle process: each key
    becomes the same Key event Pilot sends (the same names, the same
    character), and the app handles it and what it causes (``step``, and
    the animations it started) before the next key."""
    app = pilot.app
    for key in keys:
        if len(key) == 1 and not key.isalnum():
            key = _character_to_key(key)
        try:
            char: str | None = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
        except KeyError:
            char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)
        app.post_message(event)
        await step(pilot)
        await app.animator.wait_until_complete()  # as Pilot does: a scroll the key started has ended
        await step(pilot)


async def until(pilot: Pilot[Any], condition: Callable[[], object], timeout: float = TIMEOUT,
                what: str = "") -> None:
    """Let the app run until ``condition()`` is true: messages are handled
    between checks, and a short sleep lets worker threads go on. Fails the
    test after ``timeout`` seconds, saying ``what`` it waited for."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        await step(pilot)
        if condition():
            return
        if loop.time() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or condition}")
        await asyncio.sleep(0.005)


async def settle(app: App[Any], pilot: Pilot[Any], timeout: float = TIMEOUT) -> None:
    """Every worker done and what they posted handled, including the workers
    that those messages started (a load that starts counting), until no worker
    is left to run and no message to handle."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        await step(pilot)
        running = [w for w in app.workers if not w.is_finished]
        if not running:
            await asyncio.sleep(0)  # what a finished thread worker posted last is queued from its thread
            if not queued(app):
                return
            continue
        if loop.time() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for the workers {running}")
        await app.workers.wait_for_complete(running)
