
set edit:completion:arg-completer[mastra-ask] = { |@words|
    var index = (count $words)
    set index = (- $index 1)

    put (env _CLAP_IFS="\n" _CLAP_COMPLETE_INDEX=(to-string $index) _MASTRA_ASK_COMPLETE="elvish" mastra-ask -- $@words) | to-lines
}

