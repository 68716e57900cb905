#!/bin/bash
# A stand-in for the devstack functions devstack/plugin.sh calls, for test_plugin.py.
# Functions that write files (iniset and the devstack helpers built on it) write real ini
# files as devstack does; the others append one line per call to $STUB_LOG: the function's
# name and its arguments, separated by the unit separator (\x1f).
# Inputs: STUB_LOG, STUB_BIN (a directory of fake commands), ENABLED_SERVICES.

function _stub_record {
    local arg
    {
        printf '%s' "$1"
        shift
        for arg in "$@"; do
            printf '\x1f%s' "$arg"
        done
        printf '\n'
    } >> "$STUB_LOG"
}

# iniset [-sudo] file section option value: set one option, creating file and section
# (bash builtins only: the plugin calls it some fifty times a phase)
function iniset {
    if [[ $1 == "-sudo" ]]; then
        shift
    fi
    local file=$1 section=$2 option=$3 value=$4
    [[ -n "$file" && -n "$section" && -n "$option" ]] || return 1
    local -a lines=()
    local line key current="" seen=0 done=0
    if [[ -f "$file" ]]; then
        mapfile -t lines < "$file"
    fi
    local -a out=()
    for line in "${lines[@]}"; do
        if [[ $line =~ ^\[(.*)\][[:space:]]*$ ]]; then
            if [[ $current == "$section" && $done == 0 ]]; then
                if [[ ${#out[@]} -gt 0 && -z ${out[-1]} ]]; then
                    out[-1]="$option = $value"
                    out+=("")
                else
                    out+=("$option = $value")
                fi
                done=1
            fi
            current=${BASH_REMATCH[1]}
            [[ $current == "$section" ]] && seen=1
        elif [[ $current == "$section" && $done == 0 && $line == *=* ]]; then
            key=${line%%=*}
            key=${key%"${key##*[![:space:]]}"}
            if [[ $key == "$option" ]]; then
                out+=("$option = $value")
                done=1
                continue
            fi
        fi
        out+=("$line")
    done
    if [[ $done == 0 ]]; then
        if [[ $seen == 0 ]]; then
            out+=("" "[$section]")
        fi
        out+=("$option = $value")
    fi
    printf '%s\n' "${out[@]}" > "$file"
}

function trueorfalse {
    local default=$1
    local value=${!2:-$default}
    case "$value" in
        1 | [yY]es | "YES" | [tT]rue | "TRUE") echo "True" ;;
        0 | [nN]o | "NO" | [fF]alse | "FALSE") echo "False" ;;
        *) echo "$default" ;;
    esac
}

function enable_service {
    local service
    for service in "$@"; do
        [[ ,$ENABLED_SERVICES, =~ ,$service, ]] || ENABLED_SERVICES+=",$service"
    done
    ENABLED_SERVICES=${ENABLED_SERVICES#,}
}

function is_service_enabled {
    local service
    for service in "$@"; do
        [[ ,$ENABLED_SERVICES, =~ ,$service, ]] && return 0
    done
    return 1
}

function die {
    shift
    echo "die: $*" >&2
    exit 1
}

function sudo { "$@"; }
function echo_summary { echo "summary: $*"; }
function get_python_exec_prefix { echo "$STUB_BIN"; }
function is_ubuntu { return 0; }
function database_connection_url { echo "$BASE_SQL_CONN/$1?charset=utf8"; }
function get_transport_url { echo "rabbit://$RABBIT_USERID:$RABBIT_PASSWORD@$RABBIT_HOST:5672/"; }

function setup_develop { _stub_record setup_develop "$@"; }
function pip_install { _stub_record pip_install "$@"; }
function install_package { _stub_record install_package "$@"; }
function restart_service { _stub_record restart_service "$@"; }
function recreate_database { _stub_record recreate_database "$@"; }
function create_service_user { _stub_record create_service_user "$@"; }
function get_or_create_service { _stub_record get_or_create_service "$@"; }
function get_or_create_endpoint { _stub_record get_or_create_endpoint "$@"; }
function run_process { _stub_record run_process "$@"; }
function stop_process { _stub_record stop_process "$@"; }
# devstack's $PYTHON (stackrc): the interpreter the plugin runs tools with
function _stub_python { _stub_record python "$@"; }
PYTHON=_stub_python

function remove_uwsgi_config {
    _stub_record remove_uwsgi_config "$@"
    rm -rf "$1"
}

# As lib/rpc_backend's, with rabbit enabled
function iniset_rpc_backend {
    _stub_record iniset_rpc_backend "$@"
    iniset "$2" "${3:-DEFAULT}" transport_url "$(get_transport_url)"
}

# As lib/keystone's (through configure_keystoneauth)
function configure_keystone_authtoken_middleware {
    local conf_file=$1 admin_user=$2 section=${3:-keystone_authtoken}
    _stub_record configure_keystone_authtoken_middleware "$@"
    iniset "$conf_file" "$section" auth_type password
    iniset "$conf_file" "$section" interface public
    iniset "$conf_file" "$section" auth_url "$KEYSTONE_SERVICE_URI"
    iniset "$conf_file" "$section" username "$admin_user"
    iniset "$conf_file" "$section" password "$SERVICE_PASSWORD"
    iniset "$conf_file" "$section" user_domain_name "$SERVICE_DOMAIN_NAME"
    iniset "$conf_file" "$section" project_name "$SERVICE_PROJECT_NAME"
    iniset "$conf_file" "$section" project_domain_name "$SERVICE_DOMAIN_NAME"
    iniset "$conf_file" "$section" www_authenticate_uri "$KEYSTONE_SERVICE_URI"
    iniset "$conf_file" "$section" cafile "$SSL_BUNDLE_FILE"
    iniset "$conf_file" "$section" memcached_servers "$MEMCACHE_SERVERS"
}

# As functions' setup_systemd_logging
function setup_logging {
    iniset "$1" DEFAULT logging_debug_format_suffix "{{(pid=%(process)d) %(funcName)s %(pathname)s:%(lineno)d}}"
    iniset "$1" DEFAULT logging_context_format_string "%(color)s%(levelname)s %(name)s [%(global_request_id)s %(request_id)s] %(message)s"
    iniset "$1" DEFAULT logging_default_format_string "%(color)s%(levelname)s %(name)s [-] %(message)s"
    iniset "$1" DEFAULT logging_exception_prefix "ERROR %(name)s %(instance)s"
    iniset "$1" DEFAULT log_color "$LOG_COLOR"
}

# As lib/apache's, for a module path and the Apache proxy (no http socket)
function write_uwsgi_config {
    local conf=$1 wsgi=$2 url=$3 http=$4 name=$5
    _stub_record write_uwsgi_config "$@"
    rm -rf "$conf"
    if [[ "$wsgi" =~ ^[a-zA-Z0-9_.]+:[a-zA-Z0-9_]+$ ]]; then
        iniset "$conf" uwsgi module "$wsgi"
    else
        iniset "$conf" uwsgi wsgi-file "$wsgi"
    fi
    iniset "$conf" uwsgi processes "$API_WORKERS"
    iniset "$conf" uwsgi master true
    if [[ -n "$http" ]]; then
        iniset "$conf" uwsgi http "$http"
    else
        iniset "$conf" uwsgi socket "/var/run/uwsgi/$name.socket"
        _stub_record apache_proxy_pass "$url" "unix:/var/run/uwsgi/$name.socket|uwsgi://uwsgi-uds-$name"
    fi
}
