pytest_plugins = ["tests.fx_s3", "tests.fx_archiver"]
