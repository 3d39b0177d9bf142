// Drives the real, compiled LoopDetectionService of @google/gemini-cli-core
// (the version installed in the directory given) as GeminiClient
// (dist/src/core/client.js) feeds it, for loopbreak's differential test
// (rules/gemini_diff_test.go). Written for loopbreak; no code of the CLI's.
//
//   node driver.mjs CORE_DIR SESSIONS_FILE
//
// CORE_DIR is the package's directory (.../node_modules/@google/gemini-cli-core).
// SESSIONS_FILE holds one session a line, a JSON array of events:
//   {"p": "prompt-id"}            a user prompt: reset(promptId) when the id changes
//   {"c": "text"}                 a Content event
//   {"t": "name", "a": "<json>"}  a ToolCallRequest for a function call with that
//                                 name and args JSON.parse(a), built as Turn's
//                                 handlePendingFunctionCall (dist/src/core/turn.js)
//                                 builds it: name trimmed, else 'generic_tool';
//                                 args, when falsy, {}
// It prints one line per session, a JSON array of firings
// {"i": event index, "count": detectedCount, "type": LoopType}.
// As the client does: a firing of count 1 is followed by clearDetection
// (_recoverFromLoop, same prompt); one of count > 1 ends the prompt, so
// events up to the next prompt (a new id) are not fed.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [coreDir, sessionsFile] = process.argv.slice(2);
const load = (rel) => import(pathToFileURL(path.join(coreDir, 'dist', 'src', rel)).href);
const { LoopDetectionService } = await load('services/loopDetectionService.js');
const { GeminiEventType } = await load('core/turn.js');

// All the service reads of its context outside the LLM check (which
// turnStarted runs only after 30 turns of a prompt, and which is not
// called here): the kill switch, and the telemetry's usage switch.
const config = {
  getDisableLoopDetection: () => false,
  getUsageStatisticsEnabled: () => false,
};

const out = [];
for (const line of readFileSync(sessionsFile, 'utf8').split('\n')) {
  if (line.trim() === '') continue;
  const events = JSON.parse(line);
  const service = new LoopDetectionService({ config });
  let lastPromptId = 'session';
  let ended = false;
  const firings = [];
  events.forEach((ev, i) => {
    if ('p' in ev) {
      // A new id is a new user prompt. The same id is the client's own
      // continuation (a tool result, the recovery prompt, "Please
      // continue."): no reset, and none follows a stop.
      if (ev.p !== lastPromptId) {
        service.reset(ev.p, '');
        lastPromptId = ev.p;
        ended = false;
      }
      return;
    }
    if (ended) return;
    const event = 'c' in ev
      ? { type: GeminiEventType.Content, value: ev.c }
      : {
        type: GeminiEventType.ToolCallRequest,
        value: { name: ev.t.trim() || 'generic_tool', args: (ev.a === undefined ? undefined : JSON.parse(ev.a)) || {} },
      };
    const r = service.addAndCheck(event);
    if (r.count > 0) {
      firings.push({ i, count: r.count, type: r.type });
      if (r.count === 1) service.clearDetection();
      else ended = true;
    }
  });
  out.push(JSON.stringify(firings));
}
process.stdout.write(out.join('\n') + '\n');
