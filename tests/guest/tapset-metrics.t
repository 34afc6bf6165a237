# json_data and prometheus probes: /proc/systemtap/MOD/data.json, metadata.json and __prometheus read with cat, checked exactly and against the formats; the _map/_unquoted prometheus macros of every arity (1 to 8) in procfs files "metrics" and "arities"
# Used by tests/run (issue 15): tapset/linux/json.stp, json.stpm, prometheus.stp, prometheus.stpm.

timeout_s=60

build() {
    $STAP -p4 -m t_metrics "$TOP/tests/guest/scripts/metrics/metrics.stp" >/dev/null
}

guest() {
    local d=/proc/systemtap/t_metrics pid i
    staprun t_metrics.ko >run.out 2>run.err &
    pid=$!
    for ((i = 0; i < 600; i++)); do
        [[ -s run.out ]] && break
        nap 0.1
    done
    cat $d/__prometheus >prom1.out
    cat $d/__prometheus >prom2.out
    cat $d/metrics >metrics.out
    cat $d/arities >arities.out
    cat $d/data.json >data.json
    cat $d/data.json >data2.json
    cat $d/metadata.json >metadata.json
    echo 1 >$d/stop
    wait "$pid"
}

check() {
    [[ $(cat run.out) == ready && ! -s run.err ]]
    # Prometheus text format: comments, then name{label="value",...} number per line
    cmp prom1.out prom2.out
    grep -vE '^(# (HELP|TYPE) [a-z_]+ .+|[a-zA-Z_:][a-zA-Z0-9_:]*\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)+\} -?[0-9]+)$' \
        prom1.out && { echo "bad Prometheus lines above"; return 1; }
    [[ $(head -n 2 prom1.out) == "# HELP count things per thread and word"$'\n'"# TYPE count gauge" ]]
    diff <(tail -n +3 prom1.out | sort) - <<'EOW'
calls_total{op="3"} 11
count{tid="1",word="a b"} 5
count{tid="2",word="q\"x"} 7
EOW
    # the _map forms: keys and values through the script's functions, quoted or not
    diff <(sort metrics.out) - <<'EOW'
kib{dev="9",rw="w"} 2
kib{dev="sda",rw="r\\w"} 4
ops{op="op-3"} 11
EOW
    # arities 3 to 8, one key each, in the script's order: quoted by the macro (_map), by the mappers (_unquoted)
    diff arities.out - <<'EOW'
m3{x1="1",x2="b",x3="sda"} 3
m4{x1="1",x2="b",x3="3",x4="sda"} 4
m5{x1="1",x2="b",x3="3",x4="4",x5="sda"} 5
m6{x1="1",x2="b",x3="3",x4="4",x5="5",x6="sda"} 6
m7{x1="1",x2="b",x3="3",x4="4",x5="5",x6="6",x7="sda"} 7
m8{x1="1",x2="b",x3="3",x4="4",x5="5",x6="6",x7="7",x8="sda"} 8
u3{x1="op-1",x2="b",x3="8"} 3072
u4{x1="op-1",x2="b",x3="3",x4="8"} 4096
u5{x1="op-1",x2="b",x3="3",x4="4",x5="8"} 5120
u6{x1="op-1",x2="b",x3="3",x4="4",x5="5",x6="8"} 6144
u7{x1="op-1",x2="b",x3="3",x4="4",x5="5",x6="6",x7="8"} 7168
u8{x1="op-1",x2="b",x3="3",x4="4",x5="5",x6="6",x7="7",x8="8"} 8192
EOW
    cmp data.json data2.json
    diff data.json - <<'EOW'
{
  "count": 42,
  "name": "stap",
  "procs": [
    {
      "__id": "p1",
      "reads": 3,
      "comm": "cat"
    },
    {
      "__id": "p2",
      "reads": 4
    }
  ]
}
EOW
    diff metadata.json - <<'EOW'
{
  "prefix": "t_metrics",
  "metrics": [
    {
      "name": "count",
      "pointer": "/count",
      "type": "integer",
      "description": "things counted",
      "units": "things"
    },
    {
      "name": "name",
      "pointer": "/name",
      "type": "string"
    },
    {
      "name": "procs",
      "pointer": "/procs",
      "type": "array",
      "description": "per process",
      "index": "/__id",
      "metrics": [
        {
          "name": "comm",
          "pointer": "/comm",
          "type": "string"
        },
        {
          "name": "reads",
          "pointer": "/reads",
          "type": "integer",
          "description": "read calls",
          "units": "calls"
        }
      ]
    }
  ]
}
EOW
    python3 -c 'import json,sys; [json.load(open(f)) for f in sys.argv[1:]]' data.json metadata.json
}
