# Sourced by the measuring scripts that compare builds: takes the leading
# `--bin BIN` options (repeatable) of the script's arguments into the array
# `bins` and leaves the other arguments in the array `args`, for
# `set -- "${args[@]}"`.
take_bins() {
    bins=()
    while [ "${1:-}" = --bin ]; do
        bins+=("$2")
        shift 2
    done
    args=("$@")
}
