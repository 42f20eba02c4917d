import type { Command } from 'commander';

/** Every command path (`posts create`…) with the words that may follow it: subcommands and options. */
function tree(command: Command, prefix: string[] = [], into = new Map<string, string[]>()): Map<string, string[]> {
  const words = [
    ...command.commands.map((c) => c.name()),
    ...command.options.flatMap((o) => [o.long, o.short].filter((x): x is string => Boolean(x))),
  ];
  into.set(prefix.join(' '), words);
  for (const sub of command.commands) tree(sub, [...prefix, sub.name()], into);
  return into;
}

/**
 * A completion script for bash; zsh runs the same through its bash compatibility. Words that are
 * not commands (option values, files) fall back to the shell's file completion.
 */
export function completionScript(program: Command, shell: 'bash' | 'zsh', operator: string[]): string {
  const paths = tree(program);
  const globals = program.options.flatMap((o) => [o.long].filter(Boolean));
  // The word after one of these is its value, not a command.
  const valued = new Set<string>();
  const collectValued = (command: Command) => {
    for (const o of command.options) if (o.required || o.optional) for (const flag of [o.long, o.short]) if (flag) valued.add(flag);
    command.commands.forEach(collectValued);
  };
  collectValued(program);
  paths.set('', [...paths.get('')!, ...operator, '--help', '--version']);
  const cases = [...paths]
    .map(
      ([path, words]) =>
        `    "${path}") words="${[...new Set([...words, ...(path ? globals : []), ...(path ? ['--help'] : [])])].join(' ')}" ;;`,
    )
    .join('\n');
  const body = `_herald() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" prev="" w words
  for w in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case " ${[...valued].join(' ')} " in *" $prev "*) prev="$w"; continue ;; esac
    prev="$w"
    case "$w" in -*) ;; *) [[ -z "$path" || " ${[...paths.keys()]
      .filter(Boolean)
      .map((p) => p.replace(/ /g, '_'))
      .join(' ')} " == *" \${path// /_}_$w "* ]] && path="\${path:+$path }$w" ;; esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _herald herald
`;
  return shell === 'zsh' ? `#compdef herald\nautoload -U +X bashcompinit && bashcompinit\n${body}` : body;
}
