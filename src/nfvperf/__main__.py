from nfvperf.cli import main

main()
