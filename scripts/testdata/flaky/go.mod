module github.com/lockbench/lockbench/scripts/testdata/flaky

go 1.26
