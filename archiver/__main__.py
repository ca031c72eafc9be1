from archiver.cli import main

raise SystemExit(main())
