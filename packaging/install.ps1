# Installs mcpscope's release binary for this Windows machine into a user directory.
#
#   irm https://github.com/mcpscope/mcpscope/releases/latest/download/install.ps1 | iex
#
# Environment:
#   MCPSCOPE_VERSION      version to install (default: the one this script came with)
#   MCPSCOPE_INSTALL_DIR  where mcpscope.exe goes (default: %LOCALAPPDATA%\Programs\mcpscope)
#   MCPSCOPE_INSTALL_BASE where the archives and SHA256SUMS are (default: the
#                         GitHub release of that version)
#
# It downloads mcpscope-VERSION-TARGET.zip and SHA256SUMS, refuses the archive
# unless its SHA-256 is the one listed, and never needs administrator rights.
$ErrorActionPreference = 'Stop'

$Version = if ($env:MCPSCOPE_VERSION) { $env:MCPSCOPE_VERSION } else { '@VERSION@' }
$Repo = '@REPO@'
$Base = if ($env:MCPSCOPE_INSTALL_BASE) { $env:MCPSCOPE_INSTALL_BASE } else { "https://github.com/$Repo/releases/download/v$Version" }
$Dest = if ($env:MCPSCOPE_INSTALL_DIR) { $env:MCPSCOPE_INSTALL_DIR } else { Join-Path $env:LOCALAPPDATA 'Programs\mcpscope' }

function Fail([string]$Message) {
    Write-Error "mcpscope-install: error: $Message"
    exit 1
}

$arch = $env:PROCESSOR_ARCHITECTURE
# The release workflow builds the MSVC binary; MCPSCOPE_TARGET names another (e.g. the mingw build).
$Override = $env:MCPSCOPE_TARGET
switch ($arch) {
    'AMD64' { $Target = if ($Override) { $Override } else { 'x86_64-pc-windows-msvc' } }
    default { Fail "no prebuilt binary for the CPU '$arch'; build from source: cargo install mcpscope" }
}

$Archive = "mcpscope-$Version-$Target.zip"
$Tmp = Join-Path ([System.IO.Path]::GetTempPath()) ("mcpscope-" + [System.Guid]::NewGuid())
New-Item -ItemType Directory -Path $Tmp | Out-Null
try {
    Write-Host "mcpscope-install: downloading $Archive"
    try {
        Invoke-WebRequest -UseBasicParsing -Uri "$Base/SHA256SUMS" -OutFile (Join-Path $Tmp 'SHA256SUMS')
        Invoke-WebRequest -UseBasicParsing -Uri "$Base/$Archive" -OutFile (Join-Path $Tmp $Archive)
    } catch {
        Fail "cannot download from ${Base}: $($_.Exception.Message)"
    }

    $want = $null
    foreach ($line in Get-Content (Join-Path $Tmp 'SHA256SUMS')) {
        $parts = $line -split '\s+', 2
        if ($parts.Count -eq 2 -and $parts[1].TrimStart('*') -eq $Archive) { $want = $parts[0].ToLowerInvariant() }
    }
    if (-not $want) { Fail "SHA256SUMS lists no $Archive" }
    $got = (Get-FileHash -Algorithm SHA256 (Join-Path $Tmp $Archive)).Hash.ToLowerInvariant()
    if ($got -ne $want) { Fail "checksum mismatch for $Archive (expected $want, got $got): refusing to install" }

    Expand-Archive -Path (Join-Path $Tmp $Archive) -DestinationPath $Tmp -Force
    New-Item -ItemType Directory -Force -Path $Dest | Out-Null
    Copy-Item -Force (Join-Path $Tmp "mcpscope-$Version-$Target\mcpscope.exe") (Join-Path $Dest 'mcpscope.exe')
} finally {
    Remove-Item -Recurse -Force $Tmp -ErrorAction SilentlyContinue
}

Write-Host "mcpscope-install: installed $(Join-Path $Dest 'mcpscope.exe')"
$userPath = [Environment]::GetEnvironmentVariable('Path', 'User')
if (-not (($userPath -split ';') -contains $Dest)) {
    Write-Host "mcpscope-install: add it to your PATH:"
    Write-Host "  [Environment]::SetEnvironmentVariable('Path', `"$Dest;`$([Environment]::GetEnvironmentVariable('Path','User'))`", 'User')"
}
