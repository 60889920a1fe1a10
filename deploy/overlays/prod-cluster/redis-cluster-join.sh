#!/bin/sh
# Lexio's Redis Cluster, made whole: created if there is none, every listed node that is in no
# cluster added to it as a replica, nothing at all when all is well. The Job redis-cluster-join
# runs it after each deploy (deploy/overlays/prod-cluster; docs/redis-cluster.md), in Redis's
# own image (redis-cli, a POSIX sh, awk, getent: nothing to install); the ops tests run it
# against real redis-server processes (tests/ops/test_ops_redis_cluster_join.py).
#
#   redis-cluster-join.sh HOST:PORT...    every node of the cluster: the StatefulSet's pods
#
# Environment: REDISCLI_AUTH, the password (redis-cli reads it itself: never on a command
# line); CLUSTER_REPLICAS, replicas per master when creating (1); WAIT_SECONDS, how long the
# nodes may take to answer and the cluster to settle (300).
#
# Each step runs only where needed, so that a second run changes nothing:
# 1. wait until every node resolves and answers PING;
# 2. no node in a cluster yet: `redis-cli --cluster create`, every node, --cluster-replicas;
# 3. else: a member that knows a listed node under an old address (every pod restarted at once
#    with new IPs, so none finds the others) is told the new one (CLUSTER MEET: the same node
#    id, so Redis takes it as that node's new address, not a new node); then each listed node
#    in no cluster (a new pod, or one whose volume was lost: a new, empty node) is added as a
#    replica of the healthy master with the fewest healthy replicas (`redis-cli --cluster
#    add-node --cluster-slave --cluster-master-id`);
# 4. until the cluster is whole: a node id that no listed node has any more, flagged failed,
#    without slots (the lost node's old self) is forgotten on every node (CLUSTER FORGET) —
#    only while every listed node answers, else it may be a node that is merely down; whole
#    is: every node reports cluster_state:ok with all 16384 slots served, knows exactly the
#    listed nodes, all connected, none failing, agrees with the others on every role, and
#    every master that serves slots has a replica.
# A node that belongs to another cluster (one that knows none of these nodes) is never met:
# that would merge two clusters' slots. A master without slots is left alone (a master being
# added by an operator; docs/redis-cluster.md). Exit status: 0 once whole; 1 if a node does not
# answer or the cluster is not whole in time (with what is wrong); 2 bad arguments.
set -eu

WAIT_SECONDS=${WAIT_SECONDS:-300}
CLUSTER_REPLICAS=${CLUSTER_REPLICAS:-1}
SLOTS=16384
deadline=$(($(date +%s) + WAIT_SECONDS))

say() { printf 'redis-cluster-join: %s\n' "$*"; }
die() {
    printf 'redis-cluster-join: %s\n' "$*" >&2
    exit 1
}
expired() { [ "$(date +%s)" -ge "$deadline" ]; }

# cli IP PORT ARGS...: one command's reply, carriage returns removed (redis-cli exits 0 on an
# error reply: callers read the reply).
cli() {
    _ip=$1 _port=$2
    shift 2
    redis-cli -h "$_ip" -p "$_port" "$@" 2>&1 </dev/null | tr -d '\r'
}

# An address's IPv4 address (an address stays itself): CLUSTER MEET and redis-cli --cluster
# take addresses, not names. (An IPv6-only cluster would need ahostsv6 here.)
resolve() { getent ahostsv4 "$1" 2>/dev/null | awk 'NR == 1 { print $1 }'; }

# info_field NAME: the value of NAME in the CLUSTER INFO text on stdin.
info_field() { awk -F: -v name="$1" '$1 == name { print $2 }'; }

# 1. Every node, by address. $nodes: one line per node answering, "IP PORT NAME".
[ $# -gt 0 ] || {
    echo "usage: redis-cluster-join.sh HOST:PORT..." >&2
    exit 2
}
nodes="" unreachable=""
for name in "$@"; do
    host=${name%:*} port=${name##*:}
    [ "$host" != "$name" ] || {
        echo "redis-cluster-join: $name is not HOST:PORT" >&2
        exit 2
    }
    while :; do
        ip=$(resolve "$host") reply="no address"
        [ -z "$ip" ] || reply=$(cli "$ip" "$port" PING)
        if [ "$reply" = PONG ]; then
            nodes="$nodes$ip $port $name
"
            break
        fi
        if expired; then
            say "$name does not answer (yet): $reply"
            unreachable="$unreachable $name"
            break
        fi
        sleep 1
    done
done

# $facts: one line per node answering, "IP PORT ID MEMBER CPORT": MEMBER 1 for a node in a
# cluster (it knows another node, or slots are assigned), CPORT its cluster bus port.
facts=""
while read -r ip port name; do
    [ -n "$ip" ] || continue
    info=$(cli "$ip" "$port" CLUSTER INFO)
    case $info in *cluster_state:*) ;; *) die "$name: not a cluster node: $info" ;; esac
    known=$(printf '%s\n' "$info" | info_field cluster_known_nodes)
    assigned=$(printf '%s\n' "$info" | info_field cluster_slots_assigned)
    member=0
    if [ "$known" -gt 1 ] || [ "$assigned" -gt 0 ]; then member=1; fi
    myself=$(cli "$ip" "$port" CLUSTER NODES | awk '$3 ~ /(^|,)myself(,|$)/')
    id=${myself%% *}
    cport=$(printf '%s\n' "$myself" | awk '{ split($2, a, "@"); split(a[2], b, ","); print b[1] }')
    facts="$facts$ip $port $id $member $cport
"
done <<EOF
$nodes
EOF
[ -n "$facts" ] || die "no node answers"
listed_ids=$(printf '%s' "$facts" | awk '{ printf "%s ", $3 }')
listed_count=$(printf '%s' "$facts" | grep -c .)
members=$(printf '%s' "$facts" | awk '$4 == 1')
# first_address LINES: the IP and port of the first line ("IP PORT ...").
first_address() { printf '%s\n' "$1" | awk 'NR == 1 { print $1, $2 }'; }
# Where the cluster is looked at (the entry, below).
read -r eip eport <<EOF
$(first_address "$facts")
EOF
done_what=""
# The nodes had their time to answer; the cluster has as long again to settle.
deadline=$(($(date +%s) + WAIT_SECONDS))

# view IP PORT: the node's CLUSTER NODES, one line per node: "ID IP:PORT FLAGS MASTER SLOTS..."
view() {
    cli "$1" "$2" CLUSTER NODES | awk 'NF >= 8 { split($2, a, "@"); $2 = a[1]; print }'
}

# healthy_masters VIEW: "REPLICAS ID" for every master of the view that is not failing, with
# the number of its replicas that are not failing either; fewest first (then by id).
healthy_masters() {
    printf '%s\n' "$1" | awk '
        $3 ~ /fail|noaddr|handshake/ { next }
        $3 ~ /master/ { masters[$1] = 1; next }
        $4 != "-" { replicas[$4]++ }
        END { for (m in masters) print (replicas[m] + 0), m }' | sort -k1,1n -k2,2
}

# shares_a_node VIEW VIEW: whether two views know a node in common (one cluster, whose gossip
# has not reached every node yet), or none (two clusters).
shares_a_node() {
    {
        printf '%s\n' "$1" | sed 's/^/A /'
        printf '%s\n' "$2" | sed 's/^/B /'
    } | awk '$1 == "A" { seen[$2] = 1 } $1 == "B" && ($2 in seen) { found = 1 } END { exit !found }'
}

# 2. No cluster: create it, from every node.
if [ -z "$members" ]; then
    [ -z "$unreachable" ] || die "no cluster yet, and${unreachable} do not answer: not creating one without every node"
    endpoints=$(printf '%s' "$facts" | awk '{ printf "%s:%s ", $1, $2 }')
    say "no cluster yet: creating it from $listed_count nodes, $CLUSTER_REPLICAS replica(s) per master"
    # shellcheck disable=SC2086 # one word per node
    if ! out=$(redis-cli --cluster create $endpoints --cluster-replicas "$CLUSTER_REPLICAS" --cluster-yes 2>&1 </dev/null) ||
        printf '%s' "$out" | grep -q '\[ERR\]'; then
        printf '%s\n' "$out" >&2
        die "redis-cli --cluster create failed"
    fi
    printf '%s\n' "$out" | grep -E '^(>>>|\[OK\]|M:|S:)' || true
    done_what="created the cluster"
else
    # 3a. Members that know a listed member under an old address are told the new one.
    met=0
    while read -r mip mport mid _member _cport; do
        [ -n "$mip" ] || continue
        mview=$(view "$mip" "$mport")
        while read -r pip pport pid pmember pcport; do
            [ -n "$pip" ] && [ "$pmember" = 1 ] && [ "$pid" != "$mid" ] || continue
            seen=$(printf '%s\n' "$mview" | awk -v id="$pid" '$1 == id { print $2 }')
            if [ -z "$seen" ]; then
                # Not known yet (gossip takes a moment), or a node of another cluster.
                shares_a_node "$mview" "$(view "$pip" "$pport")" ||
                    die "$mip:$mport and $pip:$pport know no node in common: two clusters? not merging them (docs/redis-cluster.md)"
            elif [ "$seen" != "$pip:$pport" ]; then
                say "$mip:$mport knows $pid at $seen: meeting it at $pip:$pport"
                cli "$mip" "$mport" CLUSTER MEET "$pip" "$pport" "$pcport" >/dev/null
                met=$((met + 1))
            fi
        done <<EOF
$members
EOF
    done <<EOF
$members
EOF
    [ "$met" -eq 0 ] || done_what="told the nodes where the others are now ($met CLUSTER MEET)"

    # The entry node: a member that sees every slot served (a failover finished: a new replica
    # then goes to the master that lost its own, not to one that still has a replica).
    read -r eip eport <<EOF
$(first_address "$members")
EOF
    joining=$(printf '%s' "$facts" | awk '$4 == 0')
    if [ -n "$joining" ]; then
        while :; do
            entry=""
            while read -r ip port _id _member _cport; do
                [ -n "$ip" ] || continue
                slots_ok=$(cli "$ip" "$port" CLUSTER INFO | info_field cluster_slots_ok)
                if [ "$slots_ok" = "$SLOTS" ]; then
                    entry="$ip $port"
                    break
                fi
            done <<EOF
$members
EOF
            [ -z "$entry" ] || break
            expired && die "no member sees all $SLOTS slots served: not adding nodes to a cluster in failover (redis-cli --cluster check $eip:$eport)"
            sleep 1
        done
        read -r eip eport <<EOF
$entry
EOF
    fi

    # 3b. Every node in no cluster joins as a replica of the master with fewest replicas.
    while read -r nip nport nid _member _cport; do
        [ -n "$nip" ] || continue
        master=$(healthy_masters "$(view "$eip" "$eport")" | awk 'NR == 1 { print $2 }')
        [ -n "$master" ] || die "$eip:$eport sees no healthy master"
        say "$nip:$nport ($nid) is in no cluster: adding it as a replica of $master"
        if ! out=$(redis-cli --cluster add-node "$nip:$nport" "$eip:$eport" \
            --cluster-slave --cluster-master-id "$master" 2>&1 </dev/null) ||
            printf '%s' "$out" | grep -q '\[ERR\]'; then
            printf '%s\n' "$out" >&2
            die "redis-cli --cluster add-node $nip:$nport failed"
        fi
        # Counted as that master's replica before the next node chooses.
        until view "$eip" "$eport" | awk -v id="$nid" -v m="$master" '$1 == id && $4 == m { found = 1 } END { exit !found }'; do
            expired && die "$eip:$eport does not see $nid as a replica of $master"
            sleep 1
        done
        done_what="${done_what:+$done_what; }added $nip:$nport as a replica of $master"
    done <<EOF
$joining
EOF
fi

# 4. Until whole: forget the lost nodes' old selves; check every node's view.
# problem: what keeps the cluster from being whole now, or nothing.
problem() {
    agreed=""
    while read -r ip port id _member _cport; do
        [ -n "$ip" ] || continue
        info=$(cli "$ip" "$port" CLUSTER INFO)
        state=$(printf '%s\n' "$info" | info_field cluster_state)
        slots_ok=$(printf '%s\n' "$info" | info_field cluster_slots_ok)
        [ "$state" = ok ] || {
            echo "$ip:$port: cluster_state $state"
            return
        }
        [ "$slots_ok" = "$SLOTS" ] || {
            echo "$ip:$port: $slots_ok of $SLOTS slots served"
            return
        }
        nview=$(view "$ip" "$port")
        wrong=$(printf '%s\n' "$nview" | awk -v listed="$listed_ids" '
            BEGIN { n = split(listed, ids, " "); for (i = 1; i <= n; i++) known[ids[i]] = 1 }
            !($1 in known) { print $1 " is not a listed node (" $3 ")"; exit }
            $3 ~ /fail|noaddr|handshake/ { print $1 " is " $3; exit }
            $3 !~ /myself/ && $8 != "connected" { print $1 " is " $8; exit }')
        [ -z "$wrong" ] || {
            echo "$ip:$port sees $wrong"
            return
        }
        count=$(printf '%s\n' "$nview" | grep -c .)
        [ "$count" -eq "$listed_count" ] || {
            echo "$ip:$port knows $count nodes"
            return
        }
        lonely=$(printf '%s\n' "$nview" | awk '
            $3 ~ /master/ && NF > 8 { masters[$1] = 1 }
            $3 !~ /master/ { replicas[$4]++ }
            END { for (m in masters) if (!(m in replicas)) { print m; exit } }')
        [ -z "$lonely" ] || {
            echo "$ip:$port: master $lonely has no replica"
            return
        }
        roles=$(printf '%s\n' "$nview" | awk '{ role = ($3 ~ /master/) ? "master" : "replica"; $2 = ""; $3 = role; $5 = $6 = $7 = $8 = ""; print }' | sort)
        if [ -z "$agreed" ]; then
            agreed=$roles
        elif [ "$roles" != "$agreed" ]; then
            echo "$ip:$port does not agree with the others on the roles and slots yet"
            return
        fi
    done <<EOF
$facts
EOF
}

if [ -n "$unreachable" ]; then
    # Nothing is forgotten, nor the cluster called whole, while a listed node may be down.
    die "${done_what:-nothing done}; but${unreachable} do not answer (the Job tries again)"
fi
while :; do
    while read -r ip port _id _member _cport; do
        [ -n "$ip" ] || continue
        stale=$(view "$ip" "$port" | awk -v listed="$listed_ids" '
            BEGIN { n = split(listed, ids, " "); for (i = 1; i <= n; i++) known[ids[i]] = 1 }
            !($1 in known) && $3 ~ /(^|,)(fail|noaddr)(,|$)/ && NF == 8 { print $1 }')
        for gone in $stale; do
            say "$ip:$port: forgetting $gone (failed, no slots, none of the listed nodes)"
            reply=$(cli "$ip" "$port" CLUSTER FORGET "$gone")
            [ "$reply" = OK ] || say "$ip:$port: CLUSTER FORGET $gone: $reply"
            case $done_what in *"forgot $gone"*) ;; *) done_what="${done_what:+$done_what; }forgot $gone" ;; esac
        done
    done <<EOF
$facts
EOF
    wrong=$(problem)
    [ -n "$wrong" ] || break
    expired && die "the cluster is not whole after ${WAIT_SECONDS} s: $wrong (redis-cli --cluster check $eip:$eport)"
    sleep 1
done
say "${done_what:-nothing to do}: $listed_count nodes, all $SLOTS slots served, every master with a replica"
