complete --keep-order --exclusive --command mastra-ask --arguments "(_MASTRA_ASK_COMPLETE=fish mastra-ask -- (commandline --current-process --tokenize --cut-at-cursor) (commandline --current-token))"
