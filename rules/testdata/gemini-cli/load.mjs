// Prints what the Gemini CLI's own loader (loadConversationRecord,
// @google/gemini-cli-core dist/src/services/chatRecordingService.js) makes
// of a recording, for loopbreak's tests: the messages it keeps, with the
// counts a replay is checked against. Written for loopbreak.
//
//   node load.mjs CORE_DIR SESSION_FILE...
//
// One line per file: {"messages", "toolCalls", "texts"}, or null when the
// loader cannot read it.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [coreDir, ...files] = process.argv.slice(2);
const { loadConversationRecord } = await import(
  pathToFileURL(path.join(coreDir, 'dist', 'src', 'services', 'chatRecordingService.js')).href);
for (const file of files) {
  const record = await loadConversationRecord(file);
  if (!record) {
    console.log('null');
    continue;
  }
  let toolCalls = 0;
  let texts = 0;
  for (const m of record.messages) {
    if (m.type !== 'gemini') continue;
    toolCalls += (m.toolCalls ?? []).length;
    const content = typeof m.content === 'string' ? m.content
      : (m.content ?? []).filter((p) => p.text && !p.thought).map((p) => p.text).join('');
    if (content) texts++;
  }
  console.log(JSON.stringify({ messages: record.messages.length, toolCalls, texts }));
}
