module example.com/wordstats

go 1.26
