// mc completion SHELL: the completion script, from @bomb.sh/tab (src/cli/completion.ts); on each
// TAB it calls `mc complete -- WORDS…` (cmd/complete.ts).
import { command } from "../src/cli/command.ts";
import { SHELLS, completionScript } from "../src/cli/completion.ts";
import { defineFlags } from "../src/cli/flags.ts";
import { UserError } from "../src/errors.ts";
import { meta } from "./commands.ts";

const flags = defineFlags(
  { shell: { type: "positional", required: true, choices: SHELLS, description: "The shell: bash, zsh, fish or powershell" } },
  { command: "completion", example: "bash" },
);

export default command(meta("completion"), flags, (f) => {
  const shell = SHELLS.find((s) => s === f.shell);
  if (!shell)
    throw new UserError(`SHELL: must be one of ${SHELLS.join(", ")}, got ${JSON.stringify(f.shell ?? "")} (e.g. mc completion bash)`);
  process.stdout.write(completionScript(shell, "mc"));
});
