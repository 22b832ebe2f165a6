from formspec_consult.cli import main

main()
