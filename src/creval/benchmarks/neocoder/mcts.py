"""The MCTS reasoning strategy of seed 000 section 5.3: tree search over partial programs.

The paper evaluates MCTS as Zhang et al. (2023, "Planning with Large Language Models for
Code Generation", PG-TD) define it: Monte-Carlo tree search whose nodes are partial
programs, expanded by the language model, each rollout completed into a whole program and
rewarded by its pass rate on the public tests, the best program found being the answer.
PG-TD works on tokens inside the decoder; creval drives models through a chat API, so the
actions here are *lines*: a node is a prefix of a program's lines and an edge adds the next
``lines`` lines. One iteration

1. **selects** a leaf from the root by P-UCB, ``Q(s') + c * P(s'|s) * sqrt(N(s)) / (1 + N(s'))``
   with ``Q`` the best reward seen below a node (PG-TD backs up the maximum), ``N`` visits
   and ``P`` the share of the parent's rollouts that went through the child (PG-TD: the
   token's probability; here the model's empirical preference among its continuations).
   PG-TD's ``beta`` grows with the visits; at creval's small budgets it is the constant ``c``;
2. **expands and rolls out** at once: the model is asked for ``width`` whole programs that
   begin with the leaf's lines (the root asks the plain problem, as the other strategies do);
3. **evaluates** each program in the sandbox on the problem's example tests: reward = the
   share of tests passed (programs are judged once, PG-TD's sequence cache);
4. **backs up**: each program is inserted into the tree along *its own* lines, down to one
   level below the selected leaf, and every node on that path takes ``N + 1`` and
   ``Q = max(Q, reward)``. A model that did not keep the given lines (small models often
   rewrite them) thus credits the prefixes it really used; the selected leaf still counts
   the visit, so it is not chosen forever.

The search stops when ``rollouts`` programs have been generated (the budget, in samples:
the same unit as the sampling strategy's ``k``) or when a program passes every example
test. A node whose children are all whole programs is expanded again rather than closed,
so the whole budget goes to search. The answer is the best program found
(the first on a tie). The example tests are the statement's examples, the ones the
self-correction strategy uses, so nothing hidden leaks into the answer; the scorer judges
the answer on the same tests.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from creval.errors import CrevalError
from creval.models.base import Completion, GenerateRequest, Message

Generate = Callable[[GenerateRequest], Awaitable[list[Completion]]]
#: The reward of a program: the share of the example tests it passes (0..1), from the sandbox.
Reward = Callable[[str], Awaitable[float]]


@dataclass(frozen=True)
class MctsSettings:
    """``rollouts``: programs generated in all (the budget); ``width``: programs asked per
    expansion; ``lines``: program lines per tree edge; ``c``: exploration weight."""

    rollouts: int = 5
    width: int = 2
    lines: int = 2
    c: float = 1.0

    def __post_init__(self) -> None:
        for name in ("rollouts", "width", "lines"):
            if getattr(self, name) < 1:
                raise CrevalError(f"MCTS {name} must be at least 1, got {getattr(self, name)}.")
        if self.c < 0:
            raise CrevalError(f"MCTS exploration weight c must be >= 0, got {self.c}.")


@dataclass(eq=False)
class Node:
    """A partial program: its first ``len(lines)`` lines."""

    lines: tuple[str, ...]
    parent: Node | None = None
    children: dict[tuple[str, ...], Node] = field(default_factory=dict)
    visits: int = 0
    value: float = 0.0  # best reward of a rollout through this node
    through: int = 0  # rollouts from the parent that went through this node (the prior)
    expanded: bool = False
    terminal: bool = False  # the lines are a whole program

    def size(self) -> int:
        return 1 + sum(c.size() for c in self.children.values())


def program_lines(code: str) -> tuple[str, ...]:
    """The lines of ``code`` as the tree sees them: trailing spaces and blank lines at the end dropped.

    >>> program_lines("def solve():  \\n    print(1)\\n\\n")
    ('def solve():', '    print(1)')
    """
    lines = [line.rstrip() for line in code.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return tuple(lines)


def p_ucb(child: Node, parent: Node, c: float) -> float:
    """PG-TD's P-UCB score of ``child`` (with a constant ``beta = c``).

    >>> root = Node(lines=(), visits=4)
    >>> a = Node(lines=("x = 1",), parent=root, visits=1, value=0.5, through=3)
    >>> b = Node(lines=("y = 2",), parent=root, visits=0, value=0.0, through=1)
    >>> root.children = {a.lines: a, b.lines: b}
    >>> round(p_ucb(a, root, 1.0), 3), round(p_ucb(b, root, 1.0), 3)  # 0.5 + .75*2/2, 0 + .25*2/1
    (1.25, 0.5)
    """
    total = sum(s.through for s in parent.children.values()) or 1
    prior = child.through / total
    return child.value + c * prior * math.sqrt(parent.visits) / (1 + child.visits)


def select(root: Node, c: float) -> Node:
    """The node to expand: descend by P-UCB among the children that are not whole programs;
    a node whose children all are is expanded again (more alternatives at that point)."""
    node = root
    while node.expanded and node.children:
        open_children = [ch for ch in node.children.values() if not ch.terminal]
        if not open_children:
            break
        node = max(open_children, key=lambda ch: p_ucb(ch, node, c))  # first wins a tie
    return node


def depth(node: Node) -> int:
    d = 0
    while node.parent is not None:
        node, d = node.parent, d + 1
    return d


def insert(root: Node, lines: tuple[str, ...], max_depth: int, step: int) -> list[Node]:
    """Put a rollout's program into the tree along its own lines, at most ``max_depth``
    edges deep; the path from the root (root included)."""
    node, path = root, [root]
    while len(path) - 1 < max_depth and len(node.lines) < len(lines):
        chunk = lines[len(node.lines): len(node.lines) + step]
        child = node.children.get(chunk)
        if child is None:
            child = node.children[chunk] = Node(lines=node.lines + chunk, parent=node)
        child.through += 1
        node = child
        path.append(node)
    if node.lines == lines:
        node.terminal = True
    return path


def continuation_request(prompt: str, prefix: tuple[str, ...], base: GenerateRequest,
                         template: str, n: int) -> GenerateRequest:
    """The request for ``n`` whole programs starting with ``prefix`` (the plain problem at the root)."""
    from creval._util.prompts import format_prompt

    text = prompt if not prefix else format_prompt(template, "neocoder_mcts_continue",
                                                   problem=prompt, prefix="\n".join(prefix))
    messages = [m for m in base.messages if m.role == "system"]
    return base.model_copy(update={"messages": (*messages, Message(role="user", content=text)), "n": n})


async def mcts_solve(generate: Generate, prompt: str, base: GenerateRequest, reward: Reward,
                     settings: MctsSettings, template: str) -> dict[str, Any]:
    """Search for a program to ``prompt``; ``base`` carries the sampling parameters (and the
    system message). Returns ``{"answers": [best answer], "trace": [...], "search": {...}}``
    where ``search`` counts requests, programs generated and programs judged."""
    from creval.benchmarks.neocoder.extract import choose_block, extract_program

    root = Node(lines=())
    judged: dict[str, float] = {}
    best: tuple[float, str] | None = None
    first_text: str | None = None
    generated = requests = 0
    trace: list[dict[str, Any]] = []
    while generated < settings.rollouts:
        leaf = select(root, settings.c)
        n = min(settings.width, settings.rollouts - generated)
        completions = await generate(continuation_request(prompt, leaf.lines, base, template, n))
        if not completions:
            raise CrevalError("The model returned no completion for an MCTS expansion.")
        requests, generated = requests + 1, generated + len(completions)
        leaf.expanded = True
        leaf_depth = depth(leaf)
        for completion in completions:
            first_text = first_text if first_text is not None else completion.text
            code, program = choose_block(completion.text), extract_program(completion.text)
            if code is None or program is None or not program_lines(code):
                trace.append({"depth": leaf_depth, "reward": None, "kept_prefix": False})
                leaf.visits += 1
                continue
            if program not in judged:
                judged[program] = await reward(program)
            score = judged[program]
            lines = program_lines(code)
            kept = lines[: len(leaf.lines)] == leaf.lines
            path = insert(root, lines, leaf_depth + 1, settings.lines)
            for node in path:
                node.visits += 1
                node.value = max(node.value, score)
            if not kept:
                leaf.visits += 1
            trace.append({"depth": leaf_depth, "reward": score, "kept_prefix": kept})
            if best is None or score > best[0]:
                best = (score, "\n".join(lines))
        if best is not None and best[0] >= 1.0:
            break
    answer = f"```python\n{best[1]}\n```" if best is not None else (first_text or "")
    search = {"requests": requests, "generated": generated, "programs_judged": len(judged),
              "tree_nodes": root.size(), "best_reward": best[0] if best else None}
    return {"answers": [answer], "trace": trace, "search": search}
