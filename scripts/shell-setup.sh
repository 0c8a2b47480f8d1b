#!/usr/bin/env bash
# scripts/shell-setup.sh BUILD_DIR [--install]: the man pages and the
# completion of the numasim in BUILD_DIR for the user's shell ($SHELL).
# Prints how to use them (without installing: man -l on the built pages,
# the completion script sourced; installed: `meson install` puts the pages
# under PREFIX/share/man and the completion where bash-completion loads
# it); with --install runs `meson install -C BUILD_DIR` first.  The main
# job (scripts/main.sh) ends with it.
set -eu
build=${1:?usage: shell-setup.sh BUILD_DIR [--install]}
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
if [ "${2-}" = --install ]; then
	meson install -C "$build" --no-rebuild --quiet
	echo "== installed: numasim, its man pages (man numasim-run) and bash completion"
fi
shell=$(basename "${SHELL:-bash}")
comp=$src/scripts/numasim-completion.bash
echo "== man pages and completion for $shell"
echo "installed with 'meson install -C $build' (as root, or --destdir):"
echo "  man numasim, man numasim-run, ...; bash completion in new shells"
echo "without installing:"
echo "  man -l $build/numasim-run.1          # one page per command: numasim-CMD.1"
echo "  export PATH=$build:\$PATH"
case $shell in
bash)
	echo "  source $comp   # add to ~/.bashrc to keep it"
	;;
zsh)
	echo "  autoload -U +X bashcompinit && bashcompinit   # zsh runs bash completions"
	echo "  source $comp   # both lines in ~/.zshrc to keep them"
	;;
*)
	echo "  ($shell: no completion is shipped for it; bash and zsh have one)"
	;;
esac
