// Reads {"root", "tool", "params"} JSON lines on stdin; prints {"llmContent"} JSON lines: Gemini CLI 0.1.13's answer.
import * as core from '@google/gemini-cli-core';
import readline from 'node:readline';

const classes = {
  read_file: core.ReadFileTool, list_directory: core.LSTool, glob: core.GlobTool,
  search_file_content: core.GrepTool, run_shell_command: core.ShellTool, replace: core.EditTool,
  write_file: core.WriteFileTool,
};
const configs = new Map();
function config(root) {
  if (!configs.has(root)) {
    configs.set(root, new core.Config({ sessionId: 'diff', targetDir: root, debugMode: false, cwd: root,
      model: 'gemini-2.5-pro', usageStatisticsEnabled: false, telemetry: { enabled: false },
      approvalMode: core.ApprovalMode.YOLO }));
  }
  return configs.get(root);
}
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  const { root, tool, params } = JSON.parse(line);
  let out;
  try {
    const t = new classes[tool](config(root));
    const result = await t.execute(params, new AbortController().signal);
    out = { llmContent: result.llmContent };
  } catch (e) {
    out = { thrown: String(e && e.stack || e) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
