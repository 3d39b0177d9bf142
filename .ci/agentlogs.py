#!/usr/bin/env python3
"""Write a large agent log in one agent's own shape, for .ci/bench (AGENTS=1).

    python3 .ci/agentlogs.py FORMAT SIZE_MB OUT [SEED]

FORMAT is one of the names FORMATS lists. The log is the format's own
fixture under testdata/ (written in the agent's shape, see testdata/README
in docs/testdata.md) replayed over and over as one long session: each
round's ids, uuids, step numbers and causes moved on (a UUID to another
UUID, other ids suffixed with the round; so a record is never
a duplicate of an earlier one and references stay consistent), about half
its texts given a round number (so detectors see both repeats and new
steps) and a third of its longer texts grown by a few hundred bytes to a
few KB of source-like lines (tool outputs are most of a real log's bytes).
Whole-document formats (a JSON array, a session object, a trajectory)
stay one document, their record list replicated.

    python3 .ci/agentlogs.py --jq FORMAT        # jq filter, then loopbreak's flags
    python3 .ci/agentlogs.py --extract FORMAT FILE  # the bench's Python reader
    python3 .ci/agentlogs.py --largest FORMAT FILE  # its largest record, in bytes

The jq filter and the Python reader take the fields a step needs, as the
bench's comparison (issue 24) asks.
"""
import json, random, re, sys, uuid

# name: (fixture, kind, loopbreak flags)
FORMATS = {
    "steps": ("testdata/steps/agent.jsonl", "jsonl", ["--input-format", "steps"]),
    "attempts": ("testdata/attempts/autopilot.jsonl", "jsonl", ["--input-format", "attempts"]),
    "openhands-events": ("testdata/steps/openhands/events.jsonl", "jsonl", ["--preset", "openhands"]),
    "openhands-trajectory": ("testdata/steps/openhands/trajectory.json", "array", ["--preset", "openhands"]),
    "openhands-v1": ("testdata/openhands/v1-stuck.jsonl", "jsonl", ["--preset", "openhands-v1"]),
    "gemini-json": ("testdata/steps/gemini-cli/session.json", "object:messages", ["--preset", "gemini-cli"]),
    "gemini-jsonl": ("testdata/steps/gemini-cli/session-2025-11-12T14-00-3f0c9a7e.jsonl", "jsonl:header", ["--preset", "gemini-cli"]),
    "claude-code": ("testdata/agents/claude-code/projects/-home-dev-calc/3f1c2a9e-7b4d-4e21-9c55-0a8e6d2f1b37.jsonl", "jsonl", ["--input-format", "claude-code"]),
    "codex": ("testdata/agents/codex/sessions/2026/11/20/rollout-2026-11-20T11-00-00-0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl", "jsonl:header", ["--input-format", "codex"]),
    "swe-agent": ("testdata/agents/swe-agent/run/calc__calc-1.traj", "object:trajectory,history", ["--input-format", "swe-agent"]),
    "cline": ("testdata/agents/cline/tasks/1763632800000/api_conversation_history.json", "array", ["--input-format", "cline"]),
}

# What jq and Python extract: the fields a step needs.
EXTRACT = {
    "steps": ("{step, action, output, kind, error, score, location}", "r.get('step'), r.get('action'), r.get('output'), r.get('kind'), r.get('error')"),
    "attempts": ("{task_id, status, blockers, completed_work, timestamp}", "r.get('task_id'), r.get('status'), r.get('blockers'), r.get('timestamp')"),
    "openhands-events": ("{id, source, action, observation, args, content, extras}", "r.get('id'), r.get('source'), r.get('action'), r.get('observation'), r.get('args'), r.get('content')"),
    "openhands-trajectory": (".[] | {id, source, action, observation, args, content, extras}", "r.get('id'), r.get('source'), r.get('action'), r.get('observation'), r.get('args'), r.get('content')"),
    "openhands-v1": ("{id, kind, source, action, observation, tool_call_id}", "r.get('id'), r.get('kind'), r.get('source'), r.get('action'), r.get('observation')"),
    "gemini-json": (".messages[] | {id, type, content, toolCalls}", "r.get('id'), r.get('type'), r.get('content'), r.get('toolCalls')"),
    "gemini-jsonl": ("{id, type, content, toolCalls}", "r.get('id'), r.get('type'), r.get('content'), r.get('toolCalls')"),
    "claude-code": ("{type, uuid, isSidechain, message}", "r.get('type'), r.get('uuid'), r.get('isSidechain'), r.get('message')"),
    "codex": ("{type, payload}", "r.get('type'), r.get('payload')"),
    "swe-agent": (".trajectory[] | {action, observation, thought}", "r.get('action'), r.get('observation'), r.get('thought')"),
    "cline": (".[] | {role, content}", "r.get('role'), r.get('content')"),
}

ID_KEY = re.compile(r"(^id$|_id$|Id$|[uU]uid$|^cause$|^step$|^\$rewindTo$)")
KEEP = {"sessionId", "session_id", "task_id", "projectHash", "conversation_id", "model_id"}
TEXT_KEYS = {"output", "content", "text", "observation", "result", "message", "thinking", "response", "thought", "command", "action"}

WORDS = ("def return import from self value error test assert path config "
         "result index append string buffer open close read write line count "
         "token parse check state event handle").split()


def code_text(rng, n):
    out, size = [], 0
    while size < n:
        ind = "    " * rng.randrange(3)
        line = ind + " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 10)))
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)


UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def shift(v, k, stride):
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return v + k * stride
    if isinstance(v, str) and v:
        if k == 0:
            return v
        if UUID.match(v):
            # A UUID stays a UUID, as the agents write them (Claude Code's
            # uuid and parentUuid, Gemini CLI's and OpenHands V1's ids):
            # "<uuid>-<k>" is no agent's shape, and a reader may keep
            # UUIDs in a table of their own. The same id in the same
            # round gets the same UUID, so references stay consistent.
            return str(uuid.uuid5(uuid.NAMESPACE_OID, "%s/%d" % (v, k)))
        return "%s-%d" % (v, k)
    return v


def mutate(v, k, stride, rng, key=None):
    if isinstance(v, str) and any(0xD800 <= ord(c) <= 0xDFFF for c in v):
        # A lone surrogate (the Gemini fixture has some, as the CLI writes
        # them) as U+FFFD: jq refuses the log otherwise, and the bench
        # compares with jq.
        v = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in v)
    if isinstance(v, dict):
        return {kk: (shift(vv, k, stride) if ID_KEY.search(kk) and kk not in KEEP and not isinstance(vv, (dict, list))
                     else mutate(vv, k, stride, rng, kk)) for kk, vv in v.items()}
    if isinstance(v, list):
        return [mutate(x, k, stride, rng, key) for x in v]
    if isinstance(v, str) and key in TEXT_KEYS and len(v) > 20 and k > 0:
        if rng.random() < 0.5:
            v = "%s (round %d)" % (v, k)
        if len(v) > 40 and rng.random() < 0.33:
            v = v + "\n" + code_text(rng, int(min(16384, rng.lognormvariate(6.7, 1.0))))
    return v


def max_int_id(v):
    m = 0
    if isinstance(v, dict):
        for kk, vv in v.items():
            if ID_KEY.search(kk) and isinstance(vv, int) and not isinstance(vv, bool):
                m = max(m, vv)
            else:
                m = max(m, max_int_id(vv))
    elif isinstance(v, list):
        for x in v:
            m = max(m, max_int_id(x))
    return m


def main():
    if sys.argv[1] == "--extract":
        # python3 agentlogs.py --extract FORMAT FILE: what the bench's
        # Python reads, every record decoded with json.loads (a JSONL
        # line) or json.load (a document), the fields a step needs taken.
        name, path = sys.argv[2], sys.argv[3]
        kind = FORMATS[name][1]
        take = eval("lambda r: (" + EXTRACT[name][1] + ")")
        n = 0
        with open(path, "rb") as f:
            if kind.startswith("jsonl"):
                for line in f:
                    take(json.loads(line))
                    n += 1
            else:
                doc = json.load(f)
                key = kind.split(":", 1)[1].split(",")[0] if kind.startswith("object") else None
                for r in (doc if key is None else doc[key]):
                    take(r)
                    n += 1
        print(n)
        return
    if sys.argv[1] == "--largest":
        # python3 agentlogs.py --largest FORMAT FILE: the largest record's
        # size in bytes (a line, or an element of the document's list).
        name, path = sys.argv[2], sys.argv[3]
        kind = FORMATS[name][1]
        with open(path, "rb") as f:
            if kind.startswith("jsonl"):
                print(max(len(l) for l in f))
                return
            doc = json.load(f)
        key = kind.split(":", 1)[1].split(",")[0] if kind.startswith("object") else None
        print(max(len(json.dumps(r)) for r in (doc if key is None else doc[key])))
        return
    if sys.argv[1] == "--jq":
        print(EXTRACT[sys.argv[2]][0])
        print(" ".join(FORMATS[sys.argv[2]][2]))
        return
    name, mb, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    fixture, kind, _ = FORMATS[name]
    rng = random.Random(seed)
    limit = int(mb * 1e6)
    with open(fixture) as f:
        text = f.read()
    with open(out, "w") as w:
        size = 0
        if kind.startswith("jsonl"):
            recs = [json.loads(l) for l in text.splitlines() if l.strip()]
            if kind.endswith(":header"):
                head = json.dumps(recs[0], separators=(",", ":")) + "\n"
                w.write(head)
                size += len(head)
                recs = recs[1:]
            stride = max_int_id(recs) + 1
            compact = "," not in text.splitlines()[0][:40] or '", "' not in text
            seps = (",", ":") if compact else (", ", ": ")
            k = 0
            while size < limit:
                for r in recs:
                    if k > 0 and isinstance(r.get("$set"), dict) and "messages" in r["$set"]:
                        continue  # Gemini's whole-history $set: once, or each round would replace the last
                    line = json.dumps(mutate(r, k, stride, rng), separators=seps, ensure_ascii=True) + "\n"
                    w.write(line)
                    size += len(line.encode())
                k += 1
            return
        doc = json.loads(text)
        keys = kind.split(":", 1)[1].split(",") if kind.startswith("object") else [None]
        lists = {key: (doc if key is None else doc[key]) for key in keys}
        stride = max_int_id(list(lists.values())) + 1
        base = len(text)
        grown = {key: [] for key in keys}
        k = 0
        while size < limit:
            for key, items in lists.items():
                for it in items:
                    m = mutate(it, k, stride, rng)
                    grown[key].append(m)
                    size += len(json.dumps(m, ensure_ascii=True)) + 2
            k += 1
        if kind == "array":
            doc = grown[None]
        else:
            for key in keys:
                doc[key] = grown[key]
        indent = 2 if "\n  " in text[:200] else None
        json.dump(doc, w, indent=indent, ensure_ascii=True)


if __name__ == "__main__":
    main()
