import type { Command, Option } from 'commander';
import { ConfigError } from '../util/errors.js';

// `locsync completion bash|zsh|fish`: a completion script made from the program's own commands,
// options and choices, so that it never falls behind the CLI.

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

interface OptionSpec {
  flags: string[];
  description: string;
  /** Allowed values (commander choices), when fixed. */
  choices: string[] | undefined;
  takesValue: boolean;
  /** The value is a file (a manifest, an output). */
  file: boolean;
}

interface CommandSpec {
  /** "sync", or "styles apply" for a subcommand. */
  path: string[];
  description: string;
  options: OptionSpec[];
  subcommands: string[];
}

function optionSpec(o: Option): OptionSpec {
  const flags = [o.short, o.long].filter((f): f is string => !!f);
  return {
    flags,
    description: o.description,
    choices: (o as Option & { argChoices?: string[] }).argChoices,
    takesValue: o.required || o.optional,
    file: /<file>/.test(o.flags),
  };
}

/** Every command (and subcommand) with its options; the program's own options under path []. */
export function commandSpecs(program: Command): CommandSpec[] {
  const out: CommandSpec[] = [];
  const walk = (cmd: Command, at: string[]) => {
    out.push({
      path: at,
      description: cmd.description(),
      options: [
        ...cmd.options.map(optionSpec),
        {
          flags: ['-h', '--help'],
          description: 'show help',
          choices: undefined,
          takesValue: false,
          file: false,
        },
      ],
      subcommands: cmd.commands.map((c) => c.name()),
    });
    for (const c of cmd.commands) walk(c, [...at, c.name()]);
  };
  walk(program, []);
  return out;
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function bashScript(specs: CommandSpec[], globals: OptionSpec[]): string {
  const globalFlags = globals.flatMap((o) => o.flags);
  const cases = specs
    .map((s) => {
      const flags = [...s.options.flatMap((o) => o.flags), ...(s.path.length ? globalFlags : [])];
      const values = [...s.options, ...(s.path.length ? globals : [])]
        .filter((o) => o.takesValue)
        .map((o) => {
          const action = o.choices
            ? `COMPREPLY=($(compgen -W ${q(o.choices.join(' '))} -- "$cur"))`
            : o.file
              ? `COMPREPLY=($(compgen -f -- "$cur"))`
              : 'COMPREPLY=()';
          return `        ${o.flags.join('|')}) ${action}; return ;;`;
        })
        .join('\n');
      return `    ${q(s.path.join(' '))})
      case "$prev" in
${values}
      esac
      if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W ${q(flags.join(' '))} -- "$cur"))
      else
        COMPREPLY=($(compgen -W ${q(s.subcommands.join(' '))} -- "$cur"))
      fi ;;`;
    })
    .join('\n');
  const withSubs = specs.filter((s) => s.subcommands.length).map((s) => s.path.join(' '));
  const valued = [
    ...new Set(
      [...specs.flatMap((s) => s.options), ...globals].filter((o) => o.takesValue).flatMap((o) => o.flags),
    ),
  ];
  return `# locsync completion for bash: source <(locsync completion bash)
_locsync() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local path="" i word skip=0
  # The command path: the words before the cursor that are not options or option values.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$word" in
      ${valued.join('|')}) skip=1; continue ;;
      -*) continue ;;
    esac
    case " ${withSubs.map((p) => (p ? `${p}` : '<top>')).join(' ')} " in
      *" \${path:-<top>} "*) path="\${path:+$path }$word" ;;
    esac
  done
  case "$path" in
${cases}
  esac
}
complete -o default -F _locsync locsync
`;
}

function fishScript(specs: CommandSpec[], globals: OptionSpec[]): string {
  const lines = ['# locsync completion for fish: locsync completion fish | source', 'complete -c locsync -f'];
  const cond = (path: string[]) =>
    path.length === 0
      ? '__fish_use_subcommand'
      : path.length === 1
        ? `__fish_seen_subcommand_from ${path[0]}`
        : `__fish_seen_subcommand_from ${path[0]}; and __fish_seen_subcommand_from ${path[1]}`;
  const option = (o: OptionSpec, condition: string | undefined) => {
    const parts = ['complete -c locsync'];
    if (condition) parts.push(`-n ${q(condition)}`);
    for (const f of o.flags) parts.push(f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`);
    if (o.choices) parts.push(`-x -a ${q(o.choices.join(' '))}`);
    else if (o.file) parts.push('-r -F');
    else if (o.takesValue) parts.push('-x');
    parts.push(`-d ${q(o.description)}`);
    return parts.join(' ');
  };
  for (const o of globals) lines.push(option(o, undefined));
  for (const s of specs) {
    for (const sub of specs.filter(
      (c) => c.path.length === s.path.length + 1 && c.path.slice(0, -1).join(' ') === s.path.join(' '),
    ))
      lines.push(
        `complete -c locsync -n ${q(cond(s.path))} -a ${q(sub.path.at(-1)!)} -d ${q(sub.description)}`,
      );
    if (s.path.length) for (const o of s.options) lines.push(option(o, cond(s.path)));
  }
  return lines.join('\n') + '\n';
}

/** The completion script for `shell`. */
export function completionScript(program: Command, shell: string): string {
  if (!(SHELLS as readonly string[]).includes(shell))
    throw new ConfigError(`completion: unknown shell "${shell}" (choose ${SHELLS.join(', ')})`);
  const specs = commandSpecs(program);
  const top = specs.find((s) => s.path.length === 0)!;
  const globals = top.options.filter((o) => !o.flags.includes('--help') && !o.flags.includes('-V'));
  switch (shell as Shell) {
    case 'bash':
      return bashScript(specs, globals);
    case 'zsh':
      // zsh runs bash completion functions through bashcompinit.
      return `#compdef locsync\n# locsync completion for zsh: source <(locsync completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n${bashScript(specs, globals)}`;
    case 'fish':
      return fishScript(specs, globals);
  }
}

export async function completionAction(shell: string, _opts: unknown, cmd: Command): Promise<void> {
  process.stdout.write(completionScript(cmd.parent!, shell));
}
