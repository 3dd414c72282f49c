//! The todos: the list in memory and the five handlers over it.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::AppState;
use crate::auth::Owner;
use crate::error::{ApiError, ErrorBody};

/// A thing to do.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Todo {
    /// Its number.
    #[schema(example = 7)]
    pub id: u64,
    /// What to do.
    #[schema(example = "Water the plants")]
    pub title: String,
    /// Whether it is done.
    pub done: bool,
    /// Who wrote it down (the holder of the API key that created it).
    #[schema(example = "alice")]
    pub created_by: String,
}

/// A todo to add.
#[derive(Debug, Deserialize, ToSchema)]
pub struct NewTodo {
    /// The number to give it; the next free one when left out.
    pub id: Option<u64>,
    /// What to do.
    #[schema(example = "Water the plants", min_length = 1)]
    pub title: String,
}

/// The changes to a todo; what is left out stays as it is.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TodoChanges {
    /// A new title.
    #[schema(min_length = 1)]
    pub title: Option<String>,
    /// Done, or not done after all.
    pub done: Option<bool>,
}

/// Which todos to list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListFilter {
    /// Only those done (`true`) or not done (`false`); all when left out.
    pub done: Option<bool>,
}

/// The list: todos by id, and the id the next one gets unless it asks for its own.
#[derive(Debug)]
pub struct Todos {
    items: BTreeMap<u64, Todo>,
    next_id: u64,
}

impl Default for Todos {
    fn default() -> Todos {
        Todos {
            items: BTreeMap::new(),
            next_id: 1,
        }
    }
}

impl Todos {
    fn add(&mut self, new: NewTodo, owner: String) -> Result<Todo, ApiError> {
        let title = nonempty(new.title)?;
        let id = match new.id {
            Some(id) if self.items.contains_key(&id) => return Err(ApiError::todo_exists(id)),
            Some(id) => id,
            None => (self.next_id..)
                .find(|id| !self.items.contains_key(id))
                .expect("a free id"),
        };
        self.next_id = self.next_id.max(id.saturating_add(1));
        let todo = Todo {
            id,
            title,
            done: false,
            created_by: owner,
        };
        self.items.insert(id, todo.clone());
        Ok(todo)
    }

    fn change(&mut self, id: u64, changes: TodoChanges) -> Result<Todo, ApiError> {
        let todo = self
            .items
            .get_mut(&id)
            .ok_or(ApiError::todo_not_found(id))?;
        if let Some(title) = changes.title {
            todo.title = nonempty(title)?;
        }
        if let Some(done) = changes.done {
            todo.done = done;
        }
        Ok(todo.clone())
    }
}

fn nonempty(title: String) -> Result<String, ApiError> {
    if title.trim().is_empty() {
        return Err(ApiError::bad_request("title must not be empty"));
    }
    Ok(title)
}

/// List todos
///
/// All the todos, by id; `done` keeps only those done or not done.
#[utoipa::path(
    get,
    path = "/todos",
    tag = "todos",
    params(ListFilter),
    responses(
        (status = 200, description = "The todos, by id", body = [Todo]),
        (status = 401, description = "No key, or an unknown one", body = ErrorBody),
    )
)]
pub async fn list_todos(
    State(state): State<Arc<AppState>>,
    Query(filter): Query<ListFilter>,
) -> Json<Vec<Todo>> {
    let todos = state.todos.lock().expect("todos lock");
    let list = todos.items.values();
    Json(
        list.filter(|t| filter.done.is_none_or(|done| t.done == done))
            .cloned()
            .collect(),
    )
}

/// Get a todo
#[utoipa::path(
    get,
    path = "/todos/{id}",
    tag = "todos",
    params(("id" = u64, Path, description = "The todo's number")),
    responses(
        (status = 200, description = "The todo", body = Todo),
        (status = 401, description = "No key, or an unknown one", body = ErrorBody),
        (status = 404, description = "No todo with this number", body = ErrorBody),
    )
)]
pub async fn get_todo(
    State(state): State<Arc<AppState>>,
    Path(id): Path<u64>,
) -> Result<Json<Todo>, ApiError> {
    let todos = state.todos.lock().expect("todos lock");
    let todo = todos.items.get(&id).ok_or(ApiError::todo_not_found(id))?;
    Ok(Json(todo.clone()))
}

/// Add a todo
///
/// Writes down a new todo, not done yet, under the next free number or the one asked for.
#[utoipa::path(
    post,
    path = "/todos",
    tag = "todos",
    request_body = NewTodo,
    responses(
        (status = 201, description = "The todo added", body = Todo),
        (status = 400, description = "An empty title", body = ErrorBody),
        (status = 401, description = "No key, or an unknown one", body = ErrorBody),
        (status = 409, description = "The number asked for is taken", body = ErrorBody),
    )
)]
pub async fn create_todo(
    State(state): State<Arc<AppState>>,
    Extension(Owner(owner)): Extension<Owner>,
    Json(new): Json<NewTodo>,
) -> Result<(StatusCode, Json<Todo>), ApiError> {
    let todo = state.todos.lock().expect("todos lock").add(new, owner)?;
    Ok((StatusCode::CREATED, Json(todo)))
}

/// Change a todo
///
/// Renames it, or marks it done (or not done); what is left out stays as it is.
#[utoipa::path(
    patch,
    path = "/todos/{id}",
    tag = "todos",
    params(("id" = u64, Path, description = "The todo's number")),
    request_body = TodoChanges,
    responses(
        (status = 200, description = "The todo as it is now", body = Todo),
        (status = 400, description = "An empty title", body = ErrorBody),
        (status = 401, description = "No key, or an unknown one", body = ErrorBody),
        (status = 404, description = "No todo with this number", body = ErrorBody),
    )
)]
pub async fn update_todo(
    State(state): State<Arc<AppState>>,
    Path(id): Path<u64>,
    Json(changes): Json<TodoChanges>,
) -> Result<Json<Todo>, ApiError> {
    let todo = state
        .todos
        .lock()
        .expect("todos lock")
        .change(id, changes)?;
    Ok(Json(todo))
}

/// Delete a todo
///
/// Crosses it off for good.
#[utoipa::path(
    delete,
    path = "/todos/{id}",
    tag = "todos",
    params(("id" = u64, Path, description = "The todo's number")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No key, or an unknown one", body = ErrorBody),
        (status = 404, description = "No todo with this number", body = ErrorBody),
    )
)]
pub async fn delete_todo(
    State(state): State<Arc<AppState>>,
    Path(id): Path<u64>,
) -> Result<StatusCode, ApiError> {
    let mut todos = state.todos.lock().expect("todos lock");
    todos
        .items
        .remove(&id)
        .ok_or(ApiError::todo_not_found(id))?;
    Ok(StatusCode::NO_CONTENT)
}
